package runtimekind

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// Options says what the Go type alone does not.
type Options struct {
	// CRD is the CustomResourceDefinition generated for the type, as
	// controller-gen writes it. When set, everything but the Go type's
	// group, version and kind comes from it (the fields below are
	// ignored), and the three must match it.
	CRD *apiextensionsv1.CustomResourceDefinition

	// Resource is the plural resource name; default: the kind lower-cased
	// and made plural as kubebuilder does ("guestbooks", "policies").
	Resource string
	// Singular is the singular resource name; default: the kind
	// lower-cased.
	Singular string
	// ShortNames and Categories are kubectl's abbreviations and groups
	// (kubebuilder's resource marker).
	ShortNames, Categories []string
	// ClusterScoped serves the kind outside namespaces
	// (scope=Cluster); by default it is namespaced, as kubebuilder's.
	ClusterScoped bool
	// Subresources are the status and scale subresources served
	// (kubebuilder's subresource markers). Status needs a status field.
	Subresources apiserver.Subresources
	// PrinterColumns are kubectl's columns after Name (kubebuilder's
	// printcolumn markers).
	PrinterColumns []apiserver.PrinterColumn
}

// Kind returns the registration of obj's Go type, which scheme must
// know under exactly one group, version and kind: register the type's
// package there first with its AddToScheme.
func Kind(scheme *runtime.Scheme, obj runtime.Object, opts Options) (apiserver.Kind, error) {
	if scheme == nil || obj == nil {
		return apiserver.Kind{}, errors.New("runtimekind: a scheme and an object are required")
	}
	gvks, unversioned, err := scheme.ObjectKinds(obj)
	if err != nil {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: %w", err)
	}
	if unversioned || len(gvks) != 1 {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: %T is registered as %v; it must be one versioned kind", obj, gvks)
	}
	gvk := gvks[0]
	if opts.CRD != nil {
		if opts.CRD.Spec.Group != gvk.Group || opts.CRD.Spec.Names.Kind != gvk.Kind {
			return apiserver.Kind{}, fmt.Errorf("runtimekind: the CRD %s defines %s.%s, not %s of %T",
				opts.CRD.Name, opts.CRD.Spec.Names.Kind, opts.CRD.Spec.Group, gvk, obj)
		}
		return fromCRDVersion(opts.CRD, gvk.Version)
	}
	t := reflect.TypeOf(obj)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: %T is not a pointer to a struct", obj)
	}
	s, err := SchemaOf(t.Elem())
	if err != nil {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: %s: %w", gvk.Kind, err)
	}
	if opts.Subresources.Status && s.Properties["status"] == nil {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: %T has no status field for the status subresource", obj)
	}
	k := apiserver.Kind{
		Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind,
		Resource: opts.Resource, Singular: opts.Singular,
		ShortNames: opts.ShortNames, Categories: opts.Categories,
		Namespaced: !opts.ClusterScoped, Subresources: opts.Subresources,
		PrinterColumns: opts.PrinterColumns,
		Schema:         s,
		New:            func() meta.Object { return &meta.Unstructured{} },
	}
	if k.Resource == "" {
		k.Resource = Plural(gvk.Kind)
	}
	if k.Singular == "" {
		k.Singular = strings.ToLower(gvk.Kind)
	}
	return k, nil
}

// apimachineryTypes are the wire schemas of apimachinery's types whose
// JSON is not their Go fields, as Kubernetes publishes them.
func apimachineryTypes() map[reflect.Type]*schema.Schema {
	dateTime := &schema.Schema{Type: "string", Format: "date-time"}
	nested := &schema.Schema{Type: "object", XPreserveUnknownFields: true}
	return map[reflect.Type]*schema.Schema{
		reflect.TypeFor[metav1.Time]():          dateTime,
		reflect.TypeFor[metav1.MicroTime]():     dateTime,
		reflect.TypeFor[metav1.Duration]():      {Type: "string"},
		reflect.TypeFor[intstr.IntOrString]():   {XIntOrString: true},
		reflect.TypeFor[resource.Quantity]():    {XIntOrString: true},
		reflect.TypeFor[runtime.RawExtension](): nested,
		reflect.TypeFor[metav1.FieldsV1]():      nested,
		// An object's own metadata is replaced by kapi's below; nested
		// ones (pod templates) are kept as given, as controller-gen's
		// "metadata: {type: object}".
		reflect.TypeFor[metav1.ObjectMeta](): nested,
	}
}

// SchemaOf builds the schema of a kind's Go type t (a struct embedding
// metav1.TypeMeta and metav1.ObjectMeta) by reflection: the schema of a
// custom resource, whose metadata is the server's own.
func SchemaOf(t reflect.Type) (*schema.Schema, error) {
	s, err := schema.FromTypeOptions(t, schema.TypeOptions{Types: apimachineryTypes()})
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	om, err := schema.FromType(reflect.TypeFor[meta.ObjectMeta]())
	if err != nil {
		return nil, err
	}
	s.Properties["metadata"] = om
	s.Properties["apiVersion"] = &schema.Schema{Type: "string"}
	s.Properties["kind"] = &schema.Schema{Type: "string"}
	order := []string{"apiVersion", "kind", "metadata"}
	for _, name := range s.PropertyOrder {
		if name != "apiVersion" && name != "kind" && name != "metadata" {
			order = append(order, name)
		}
	}
	s.PropertyOrder = order
	var required []string
	for _, name := range s.Required {
		if name != "apiVersion" && name != "kind" && name != "metadata" {
			required = append(required, name)
		}
	}
	s.Required = required
	return s, nil
}

// Plural makes a kind's resource name as kubebuilder does for the
// common cases: lower-cased, then "y" after a consonant becomes "ies",
// and "s", "x", "z", "ch" and "sh" take "es".
func Plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case k == "":
		return ""
	case strings.HasSuffix(k, "y") && len(k) > 1 && !strings.ContainsRune("aeiou", rune(k[len(k)-2])):
		return k[:len(k)-1] + "ies"
	case strings.HasSuffix(k, "s"), strings.HasSuffix(k, "x"), strings.HasSuffix(k, "z"),
		strings.HasSuffix(k, "ch"), strings.HasSuffix(k, "sh"):
		return k + "es"
	}
	return k + "s"
}
