package apiextensionsv1_test

import (
	"fmt"

	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
)

// KindFor turns a definition into the kind it defines, or into the
// field errors kube-apiserver would answer with (a schema every version
// shares is kube's spec.validation).
func ExampleKindFor() {
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "stable.example.com", Scope: apiextensionsv1.NamespaceScoped,
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Kind: "CronTab"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
			Name: "v1", Served: true, Storage: true,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: []byte(
				`{"type":"object","properties":{"spec":{"properties":{"cronSpec":{"type":"string"}}}}}`)},
		}},
	}}
	_, errs := apiextensionsv1.KindFor(crd)
	fmt.Println(errs)
	// Output: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields
}
