package runtimekind

import (
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// FromCRD returns the registration of the kind a CustomResourceDefinition
// defines, for a CRD that serves one version: its names, scope, schema,
// status and scale subresources and printer columns. Its objects are
// meta.Unstructured.
func FromCRD(crd *apiextensionsv1.CustomResourceDefinition) (apiserver.Kind, error) {
	if crd == nil {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: nil CRD")
	}
	var served []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			served = append(served, v.Name)
		}
	}
	if len(served) != 1 {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s serves %d versions %v; a kind registered from a CRD serves exactly one", crd.Name, len(served), served)
	}
	return fromCRDVersion(crd, served[0])
}

// fromCRDVersion builds the kind of one served version of crd.
func fromCRDVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) (apiserver.Kind, error) {
	var v *apiextensionsv1.CustomResourceDefinitionVersion
	served := 0
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Served {
			served++
		}
		if crd.Spec.Versions[i].Name == version {
			v = &crd.Spec.Versions[i]
		}
	}
	switch {
	case v == nil:
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s has no version %s", crd.Name, version)
	case !v.Served:
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s does not serve version %s", crd.Name, version)
	case served > 1:
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s serves %d versions; a kind registered from a CRD serves exactly one", crd.Name, served)
	case v.Schema == nil || v.Schema.OpenAPIV3Schema == nil:
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s version %s has no openAPIV3Schema", crd.Name, version)
	}
	doc, err := json.Marshal(v.Schema.OpenAPIV3Schema)
	if err != nil {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s: %w", crd.Name, err)
	}
	s, err := schema.FromOpenAPI(doc)
	if err != nil {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s version %s: %w", crd.Name, version, err)
	}
	n := crd.Spec.Names
	k := apiserver.Kind{
		Group: crd.Spec.Group, Version: v.Name, Kind: n.Kind,
		Resource: n.Plural, Singular: n.Singular, ShortNames: n.ShortNames, Categories: n.Categories,
		Namespaced: crd.Spec.Scope != apiextensionsv1.ClusterScoped,
		Schema:     s,
		New:        func() meta.Object { return &meta.Unstructured{} },
	}
	if sr := v.Subresources; sr != nil {
		k.Subresources.Status = sr.Status != nil
		if sc := sr.Scale; sc != nil {
			k.Subresources.Scale = &apiserver.Scale{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath}
			if sc.LabelSelectorPath != nil {
				k.Subresources.Scale.LabelSelectorPath = *sc.LabelSelectorPath
			}
		}
	}
	for _, c := range v.AdditionalPrinterColumns {
		k.PrinterColumns = append(k.PrinterColumns, apiserver.PrinterColumn{
			Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description,
			Priority: c.Priority, JSONPath: c.JSONPath,
		})
	}
	return k, nil
}
