package runtimekind_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/apiserver"
	webappv1 "github.com/kapi-dev/kapi/kube/internal/guestbook/v1"
	"github.com/kapi-dev/kapi/kube/runtimekind"
)

func TestPlural(t *testing.T) {
	for kind, want := range map[string]string{
		"Guestbook": "guestbooks", "Policy": "policies", "Gateway": "gateways", "Ingress": "ingresses",
		"Box": "boxes", "Match": "matches", "Mesh": "meshes", "Quiz": "quizes", "": "",
	} {
		if got := runtimekind.Plural(kind); got != want {
			t.Errorf("Plural(%q) = %q, want %q", kind, got, want)
		}
	}
}

func TestKindNames(t *testing.T) {
	k, err := runtimekind.Kind(newScheme(t), &webappv1.Guestbook{}, runtimekind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k.Group != "webapp.example.com" || k.Version != "v1" || k.Kind != "Guestbook" || k.Resource != "guestbooks" ||
		k.Singular != "guestbook" || !k.Namespaced || k.Subresources.Status {
		t.Errorf("kind %+v", k)
	}
	crd, err := runtimekind.Kind(newScheme(t), &webappv1.Guestbook{}, runtimekind.Options{CRD: guestbookCRD(t), Resource: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	if crd.Resource != "guestbooks" || !crd.Subresources.Status ||
		len(crd.PrinterColumns) != 3 || crd.PrinterColumns[1].JSONPath != ".status.entries" {
		t.Errorf("kind from the CRD %+v", crd)
	}
	if diff := cmp.Diff([]string{"gb"}, crd.ShortNames); diff != "" {
		t.Errorf("short names from the CRD (-want +got):\n%s", diff)
	}
}

// TestSchemaOf: apimachinery's own types get their wire schema, and the
// object's metadata is the server's.
func TestSchemaOf(t *testing.T) {
	s, err := runtimekind.SchemaOf(reflect.TypeFor[webappv1.Guestbook]())
	if err != nil {
		t.Fatal(err)
	}
	status := s.Properties["status"]
	if le := status.Properties["lastEntry"]; le.Type != "string" || le.Format != "date-time" {
		t.Errorf("lastEntry (metav1.Time): %+v", le)
	}
	cond := status.Properties["conditions"]
	if cond.XListType != "map" || cond.Items.Properties["lastTransitionTime"].Format != "date-time" {
		t.Errorf("conditions: %+v", cond)
	}
	if md := s.Properties["metadata"]; md.Properties["name"] == nil || md.XPreserveUnknownFields {
		t.Errorf("metadata: %+v", md)
	}
	spec := s.Properties["spec"]
	if *spec.Properties["replicas"].Maximum != 10 {
		t.Errorf("spec: %+v", spec)
	}
	if diff := cmp.Diff([]string{"title"}, spec.Required); diff != "" {
		t.Errorf("spec required (-want +got):\n%s", diff)
	}
	if s.PropertyOrder[0] != "apiVersion" || len(s.Required) != 0 {
		t.Errorf("root order %v, required %v", s.PropertyOrder, s.Required)
	}
}

// unregistered is a kind no scheme knows.
type unregistered struct {
	metav1.TypeMeta
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (u *unregistered) DeepCopyObject() runtime.Object { c := *u; return &c }

func TestKindRefusals(t *testing.T) {
	twoVersions := guestbookCRD(t)
	v2 := twoVersions.Spec.Versions[0].DeepCopy()
	v2.Name, v2.Storage = "v2", false
	twoVersions.Spec.Versions = append(twoVersions.Spec.Versions, *v2)
	otherKind := guestbookCRD(t)
	otherKind.Spec.Names.Kind = "Visitor"
	noSchema := guestbookCRD(t)
	noSchema.Spec.Versions[0].Schema = nil
	notServed := guestbookCRD(t)
	notServed.Spec.Versions[0].Served = false
	badSchema := guestbookCRD(t)
	badSchema.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{Type: "object", AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "string"}}}
	tests := []struct {
		name string
		obj  runtime.Object
		opts runtimekind.Options
		want string
	}{
		{"unregistered", &unregistered{}, runtimekind.Options{}, "no kind is registered"},
		{"two versions", &webappv1.Guestbook{}, runtimekind.Options{CRD: twoVersions}, "serves 2 versions"},
		{"other kind", &webappv1.Guestbook{}, runtimekind.Options{CRD: otherKind}, "defines Visitor.webapp.example.com"},
		{"no schema", &webappv1.Guestbook{}, runtimekind.Options{CRD: noSchema}, "no openAPIV3Schema"},
		{"not served", &webappv1.Guestbook{}, runtimekind.Options{CRD: notServed}, "does not serve version v1"},
		{"bad schema", &webappv1.Guestbook{}, runtimekind.Options{CRD: badSchema}, "anyOf"},
		{"list", &webappv1.GuestbookList{}, runtimekind.Options{Subresources: apiserver.Subresources{Status: true}}, "no status field"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runtimekind.Kind(newScheme(t), tc.obj, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
	if _, err := runtimekind.FromCRD(twoVersions); err == nil || !strings.Contains(err.Error(), "serves 2 versions") {
		t.Errorf("FromCRD of two versions: %v", err)
	}
}
