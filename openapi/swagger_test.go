package openapi_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/openapi"
	"github.com/kapi-dev/kapi/schema"
)

// TestSwagger checks the /openapi/v2 form of a kind against what
// kube-apiserver serves for the Widget CustomResourceDefinition: its
// definition's name and references, an operation's id, media types,
// body parameter, responses and Kubernetes extensions.
func TestSwagger(t *testing.T) {
	v3, err := openapi.Document("stable.example.com", "v1", []openapi.Kind{{
		Kind: "Widget", Resource: "widgets", Namespaced: true,
		Schema: &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{
			"spec": {Type: "object", Properties: map[string]*schema.Schema{
				"protocol": {Type: "string", Default: "TCP"},
			}},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.Swagger(map[string][]byte{"apis/stable.example.com/v1": v3})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Swagger     string                    `json:"swagger"`
		Paths       map[string]map[string]any `json:"paths"`
		Definitions map[string]map[string]any `json:"definitions"`
		Security    []any                     `json:"security"`
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	item := got.Paths["/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}"]
	put := item["put"].(map[string]any)
	gotPut := map[string]any{
		"operationId": put["operationId"], "consumes": put["consumes"], "body": put["parameters"].([]any)[0],
		"200": put["responses"].(map[string]any)["200"], "action": put["x-kubernetes-action"],
		"gvk": put["x-kubernetes-group-version-kind"], "schemes": put["schemes"],
	}
	widgetRef := map[string]any{"$ref": "#/definitions/com.example.stable.v1.Widget"}
	wantPut := map[string]any{
		"operationId": "replaceStableExampleComV1NamespacedWidget",
		"consumes":    []any{"application/json", "application/yaml"},
		"body":        map[string]any{"name": "body", "in": "body", "required": true, "schema": widgetRef},
		"200":         map[string]any{"description": "OK", "schema": widgetRef},
		"action":      "put",
		"gvk":         map[string]any{"group": "stable.example.com", "version": "v1", "kind": "Widget"},
		"schemes":     []any{"https"},
	}
	if diff := cmp.Diff(wantPut, gotPut); diff != "" {
		t.Errorf("put (-want +got):\n%s", diff)
	}
	if got := item["get"].(map[string]any)["consumes"]; !cmp.Equal(got, []any{"application/json", "application/yaml"}) {
		t.Errorf("get consumes %v", got)
	}
	widget := got.Definitions["com.example.stable.v1.Widget"]
	props := widget["properties"].(map[string]any)
	if diff := cmp.Diff(map[string]any{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "description": "Standard object metadata."}, props["metadata"]); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	protocol := props["spec"].(map[string]any)["properties"].(map[string]any)["protocol"]
	if diff := cmp.Diff(map[string]any{"type": "string"}, protocol); diff != "" {
		t.Errorf("a default has no place in v2 (-want +got):\n%s", diff)
	}
	if _, ok := got.Definitions["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]; !ok || got.Swagger != "2.0" || len(got.Security) != 1 {
		t.Errorf("document: swagger %q, security %v, ObjectMeta defined %v", got.Swagger, got.Security, ok)
	}
}

func TestSwaggerETag(t *testing.T) {
	// kube-apiserver's form: the quoted upper-case hex SHA-512.
	const want = `"CF83E1357EEFB8BDF1542850D66D8007D620E4050B5715DC83F4A921D36CE9CE47D0D13C5D85F2B0FF8318D2877EEC2F63B931BD47417A81A538327AF927DA3E"`
	if got := openapi.SwaggerETag(nil); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
