package apiextensionsv1_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
)

// TestCustomResourceColumns: the columns of a custom resource's Table
// are described as kube-apiserver describes them: a column its
// definition leaves undescribed by its JSON path, and the Age column of a
// version without columns by metadata.creationTimestamp's documentation.
func TestCustomResourceColumns(t *testing.T) {
	version := func(name string, cols ...apiextensionsv1.CustomResourceColumnDefinition) apiextensionsv1.CustomResourceDefinitionVersion {
		return apiextensionsv1.CustomResourceDefinitionVersion{Name: name, Served: true, Storage: name == "v2",
			Schema:                   &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: []byte(`{"type":"object","x-kubernetes-preserve-unknown-fields":true}`)},
			AdditionalPrinterColumns: cols}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "tables.example.com", Scope: apiextensionsv1.NamespaceScoped,
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Kind: "Thing"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
			version("v2",
				apiextensionsv1.CustomResourceColumnDefinition{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
				apiextensionsv1.CustomResourceColumnDefinition{Name: "Color", Type: "string", JSONPath: ".spec.color", Description: "The color.", Priority: 1}),
			version("v1"),
		},
	}}
	k, errs := apiextensionsv1.KindFor(crd)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	type col struct {
		Name, Type, Description string
		Priority                int32
	}
	got := map[string][]col{}
	for _, v := range k.Versions {
		for _, c := range v.PrinterColumns {
			got[v.Name] = append(got[v.Name], col{c.Name, c.Type, c.Description, c.Priority})
		}
	}
	want := map[string][]col{
		"v2": {{"Size", "integer", "Custom resource definition column (in JSONPath format): .spec.size", 0}, {"Color", "string", "The color.", 1}},
		"v1": {{"Age", "date", apiserver.AgeColumn().Description, 0}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("columns (-want +got):\n%s", d)
	}
}
