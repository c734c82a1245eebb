package cel_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/controllers/crd"
	"github.com/kapi-dev/kapi/meta"
)

// crdServer serves CustomResourceDefinitions with the CEL engine.
func crdServer(t *testing.T) string {
	t.Helper()
	engine, err := cel.New(cel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{RuleEngine: engine})
	ctrl := crd.Serve(srv, crd.Options{CleanupInterval: 20 * time.Millisecond})
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = ctrl.Run(ctx) }()
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { cancel(); <-done; ts.Close(); srv.Close() })
	return ts.URL
}

// definition is a CustomResourceDefinition with one version per schema
// (JSON), the first stored.
func definition(schemas ...string) string {
	var versions []any
	for i, s := range schemas {
		versions = append(versions, map[string]any{"name": "v" + string(rune('1'+i)), "served": true, "storage": i == 0,
			"schema": map[string]any{"openAPIV3Schema": json.RawMessage(s)}})
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "things.cel.example.com"},
		"spec": map[string]any{"group": "cel.example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "things", "singular": "thing", "kind": "Thing"}, "versions": versions}})
	return string(b)
}

// TestDefinitionRuleCauses checks a definition's rules are refused as
// kube-apiserver refuses them: each problem its own cause at the rule's
// path under the schema (spec.validation's when every version shares it,
// the version's otherwise), and defaults their rules refuse at the
// default's path.
func TestDefinitionRuleCauses(t *testing.T) {
	url := crdServer(t) + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All"
	const badRules = `{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"integer"}},
	 "x-kubernetes-validations":[{"rule":"self.a +"},{"rule":"self.a > 0","messageExpression":"self.a"}]}}}`
	const ok = `{"type":"object","properties":{"spec":{"type":"object"}}}`
	const rule0 = `properties[spec].x-kubernetes-validations[0].rule | Invalid value: {"Rule":"self.a +","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | self.a +
 | ........^`
	const msg1 = `properties[spec].x-kubernetes-validations[1].messageExpression | Invalid value: {"Rule":"self.a \u003e 0","Message":"","MessageExpression":"self.a","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression must evaluate to a string`
	tests := []struct {
		name    string
		schemas []string
		want    []string
	}{
		{"two bad rules, one version", []string{badRules}, []string{
			"FieldValueInvalid | spec.validation.openAPIV3Schema." + rule0,
			"FieldValueInvalid | spec.validation.openAPIV3Schema." + msg1}},
		{"shared by two versions", []string{badRules, badRules}, []string{
			"FieldValueInvalid | spec.validation.openAPIV3Schema." + rule0,
			"FieldValueInvalid | spec.validation.openAPIV3Schema." + msg1}},
		{"in the second version", []string{ok, badRules}, []string{
			"FieldValueInvalid | spec.versions[1].schema.openAPIV3Schema." + rule0,
			"FieldValueInvalid | spec.versions[1].schema.openAPIV3Schema." + msg1}},
		{"defaults the rules refuse", []string{`{"type":"object","properties":{"spec":{"type":"object","properties":{
		  "n":{"type":"integer","default":5,"x-kubernetes-validations":[{"rule":"self < 3"}]},
		  "o":{"type":"object","default":{"a":[1,5]},"properties":{"a":{"type":"array","items":{"type":"integer",
		    "x-kubernetes-validations":[{"rule":"self < 3","message":"small"}]}}}}}}}}`}, []string{
			"FieldValueInvalid | spec.validation.openAPIV3Schema.properties[spec].properties[n].default | Invalid value: 5: failed rule: self < 3",
			"FieldValueInvalid | spec.validation.openAPIV3Schema.properties[spec].properties[o].default.a[1] | Invalid value: 5: small"}},
		{"transition rules in list-map items", []string{`{"type":"object","properties":{"spec":{"type":"object","properties":{
		  "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],
		    "properties":{"name":{"type":"string"},"port":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= oldSelf"}]}},
		    "x-kubernetes-validations":[{"rule":"self.port >= oldSelf.port"}]}}}}}}`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := request(t, "POST", url, definition(tc.schemas...))
			var got []string
			if code != 201 {
				var st meta.Status
				if code != 422 || json.Unmarshal([]byte(body), &st) != nil || st.Details == nil {
					t.Fatalf("%d %s", code, body)
				}
				for _, c := range st.Details.Causes {
					got = append(got, string(c.Type)+" | "+c.Field+" | "+c.Message)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
		})
	}
}
