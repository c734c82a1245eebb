package apiextensionsv1_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
)

// TestSchemaAsKubeWritesIt: a version's schema reads as kube-apiserver
// writes it back: fields in kube's order, unknown ones gone, JSON values
// re-encoded (keys sorted, 2.0 as 2, 1.50 as 1.5). The wants are
// kube-apiserver v1.37's answers to the same definitions.
func TestSchemaAsKubeWritesIt(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"keys out of order, an unknown key, a default with a float",
			`{"properties":{"spec":{"x-kubernetes-preserve-unknown-fields":true,"properties":{"d":{"default":{"b":2.0,"a":1},"type":"object","x-unknown":"zzz","properties":{"a":{"type":"integer"},"b":{"type":"number"}}},"e":{"enum":["x", "y"],"type":"string","example":"x","description":"E"},"n":{"type":"number","maximum":10,"minimum":1.50,"multipleOf":0.5, "default": 2.0}},"type":"object"}},"type":"object","bogusKey":1}`,
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"d":{"type":"object","default":{"a":1,"b":2},"properties":{"a":{"type":"integer"},"b":{"type":"number"}}},"e":{"description":"E","type":"string","enum":["x","y"],"example":"x"},"n":{"type":"number","default":2,"maximum":10,"minimum":1.5,"multipleOf":0.5}},"x-kubernetes-preserve-unknown-fields":true}}}`},
		{"below items and additionalProperties too",
			`{"type":"object","properties":{"l":{"items":{"xItems":1,"type":"string"},"type":"array"},"m":{"additionalProperties":{"xAP":1,"type":"string"},"type":"object"}}}`,
			`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}},"m":{"type":"object","additionalProperties":{"type":"string"}}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":` + tc.in + `}}]}}`
			var crd apiextensionsv1.CustomResourceDefinition
			if err := json.Unmarshal([]byte(in), &crd); err != nil {
				t.Fatal(err)
			}
			got := string(crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("schema (-kube-apiserver +kapi):\n%s", diff)
			}
		})
	}
}

// unknownFieldsCRD has unknown fields around and in its schema, and a
// field twice.
const unknownFieldsCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"us.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"us","kind":"U"},"x2":true,
  "versions":[{"name":"v1","served":true,"storage":true,"x3":1,"schema":{"openAPIV3Schema":{"type":"object","x1":true,"properties":{
   "spec":{"type":"object","properties":{
     "list":{"type":"array","items":{"type":"string","xItems":1}},
     "m":{"type":"object","additionalProperties":{"type":"string","xAP":1}},
     "c":{"type":"string","externalDocs":{"url":"u","xDoc":1}},
     "j":{"type":"string","anyOf":[{"pattern":"a","xAny":1}],"not":{"pattern":"b","xNot":1}},
     "k":{"type":"string","default":"x","enum":["x"],"example":"x","type":"string"}}}}}}}]}}`

// TestSchemaUnknownFields: unknown and duplicate fields in a schema are
// found as kube-apiserver finds them (not below items or
// additionalProperties), in its order: warnings under Warn, a 400 under
// Strict. (kube-apiserver's 400 says first that the body "cannot be
// handled as a CustomResourceDefinition", as it says of every kind; kapi
// does not yet, for any kind.)
func TestSchemaUnknownFields(t *testing.T) {
	problems := []string{
		`unknown field "spec.x2"`,
		`unknown field "spec.versions[0].x3"`,
		`unknown field "spec.versions[0].schema.openAPIV3Schema.x1"`,
		`unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.c.externalDocs.xDoc"`,
		`unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.j.anyOf[0].xAny"`,
		`unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.j.not.xNot"`,
		`duplicate field "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.k.type"`,
	}
	srv := apiserver.New(apiserver.Options{})
	apiextensionsv1.Register(srv)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	post := func(t *testing.T, directive string) (*http.Response, string) {
		resp, err := http.Post(ts.URL+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All&fieldValidation="+directive,
			"application/json", strings.NewReader(unknownFieldsCRD))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	t.Run("Warn", func(t *testing.T) {
		resp, body := post(t, "Warn")
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		var want []string
		for _, p := range problems {
			want = append(want, `299 - "`+strings.ReplaceAll(p, `"`, `\"`)+`"`)
		}
		if diff := cmp.Diff(want, resp.Header.Values("Warning")); diff != "" {
			t.Errorf("warnings (-kube-apiserver +kapi):\n%s", diff)
		}
	})
	t.Run("Strict", func(t *testing.T) {
		resp, body := post(t, "Strict")
		var st struct{ Message string }
		_ = json.Unmarshal([]byte(body), &st)
		want := "strict decoding error: " + strings.Join(problems, ", ")
		if resp.StatusCode != http.StatusBadRequest || !strings.HasSuffix(st.Message, want) {
			t.Errorf("%d %q, want 400 ending in %q", resp.StatusCode, st.Message, want)
		}
	})
}
