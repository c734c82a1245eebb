package runtimekind

import (
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/apiserver"
	kapiext "github.com/kapi-dev/kapi/kinds/apiextensionsv1"
)

// FromCRD returns the registration of the kind a CustomResourceDefinition
// defines, for a CRD that serves one version: its names, scope, schema
// (with its CEL rules), status and scale subresources, printer columns
// and selectable fields, as package kinds/apiextensionsv1 makes them for
// a definition created in a server. Its objects are meta.Unstructured.
// A CRD that serves several versions is for a server that serves
// definitions (package controllers/crd), which converts between them.
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
	// The definition takes the path a live one takes in a server:
	// structural checks with kube's messages, then the kind.
	doc, err := json.Marshal(crd)
	if err != nil {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s: %w", crd.Name, err)
	}
	var def kapiext.CustomResourceDefinition
	if err := json.Unmarshal(doc, &def); err != nil {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s: %w", crd.Name, err)
	}
	k, errs := kapiext.KindFor(&def)
	if len(errs) > 0 {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s: %v", crd.Name, errs)
	}
	if k.Version != version {
		return apiserver.Kind{}, fmt.Errorf("runtimekind: CRD %s stores version %s, not %s", crd.Name, k.Version, version)
	}
	return k, nil
}
