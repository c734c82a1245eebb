package patch_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

func TestMergePatch(t *testing.T) {
	tests := []struct{ name, doc, patch, want string }{
		// RFC 7386 appendix A, for object targets.
		{"change", `{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{"add", `{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{"null deletes", `{"a":"b"}`, `{"a":null}`, `{}`},
		{"null deletes one", `{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{"list replaced by scalar", `{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{"scalar replaced by list", `{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{"nested", `{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{"lists are replaced", `{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{"existing null kept", `{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{"nulls dropped from new objects", `{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		// Kubernetes objects.
		{"label removed and added", `{"metadata":{"labels":{"a":"1","b":"2"}}}`, `{"metadata":{"labels":{"a":null,"c":"3"}}}`, `{"metadata":{"labels":{"b":"2","c":"3"}}}`},
		{"ports list replaced whole", `{"spec":{"ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`, `{"spec":{"ports":[{"name":"http","port":8080}]}}`, `{"spec":{"ports":[{"name":"http","port":8080}]}}`},
		{"empty patch", `{"a":1}`, `{}`, `{"a":1}`},
		// The corner cases of the v4 library kube runs.
		{"nulls in new lists kept, pruned in their objects", `{}`, `{"a":[null,{"b":null,"c":1}]}`, `{"a":[null,{"c":1}]}`},
		{"list over an object is not pruned", `{"a":{"x":1}}`, `{"a":[{"b":null}]}`, `{"a":[{"b":null}]}`},
		{"list over a scalar is pruned", `{"a":5}`, `{"a":[{"b":null}]}`, `{"a":[{}]}`},
		{"object over a null is pruned", `{"a":null}`, `{"a":{"b":null,"c":2}}`, `{"a":{"c":2}}`},
		{"numbers keep their form", `{"a":1}`, `{"b":12345678901234567890,"c":1.5,"d":-0}`, `{"a":1,"b":12345678901234567890,"c":1.5,"d":0}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := patch.MergePatch([]byte(tc.doc), []byte(tc.patch))
			if err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, got, tc.want)
		})
	}
}

func TestMergePatchErrors(t *testing.T) {
	for _, tc := range []struct{ name, patch string }{
		{"not JSON", `{"a":`},
		{"null", `null`},
		{"a string", `"bar"`},
		{"a number", `7`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := patch.MergePatch([]byte(`{"a":"foo"}`), []byte(tc.patch))
			wantStatus(t, err, 400, meta.StatusReasonBadRequest, "Invalid JSON Patch")
		})
	}
	t.Run("a list replaces the document", func(t *testing.T) {
		_, err := patch.MergePatch([]byte(`{"a":"b"}`), []byte(`["c",{"d":null}]`))
		wantStatus(t, err, 422, meta.StatusReasonInvalid,
			` "" is invalid: patch: Invalid value: "[\"c\",{}]": json: cannot unmarshal array into Go value of type map[string]interface {}`)
		if !errors.Is(err, patch.ErrNotObject) {
			t.Errorf("%v does not wrap ErrNotObject", err)
		}
	})
}

// TestMergePatchWithoutManagedFields checks that a merge patch that keeps
// metadata.managedFields gives MergePatch's result without them, and that
// one that may change them is left to MergePatch.
func TestMergePatchWithoutManagedFields(t *testing.T) {
	const doc = `{"metadata":{"name":"a","labels":{"x":"1"},"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}]},"spec":{"n":1}}`
	tests := []struct {
		name, doc, patch string
		want             string // "" when the patch is left to MergePatch
	}{
		{"spec", doc, `{"spec":{"n":2}}`, `{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"n":2}}`},
		{"labels", doc, `{"metadata":{"labels":{"x":null,"y":"2"}}}`, `{"metadata":{"name":"a","labels":{"y":"2"}},"spec":{"n":1}}`},
		{"document without metadata", `{"spec":{}}`, `{"metadata":{"name":"b"}}`, `{"metadata":{"name":"b"},"spec":{}}`},
		{"empty patch", doc, `{}`, `{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"n":1}}`},
		{"nested objects, lists and nulls", `{"a":{"b":{"c":1,"d":[1]},"e":5},"f":{"g":null}}`, `{"a":{"b":{"c":null,"h":{"i":null}},"e":{"j":null,"k":1}},"f":{"g":{"l":2}}}`,
			`{"a":{"b":{"d":[1],"h":{}},"e":{"k":1}},"f":{"g":{"l":2}}}`},
		{"names managedFields", doc, `{"metadata":{"managedFields":null}}`, ""},
		{"sets managedFields", doc, `{"metadata":{"managedFields":[]}}`, ""},
		{"deletes metadata", doc, `{"metadata":null}`, ""},
		{"replaces metadata", doc, `{"metadata":5}`, ""},
		{"not an object", doc, `[1]`, ""},
		{"not JSON", doc, `{"a":`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, live, ok, err := patch.MergePatchWithoutManagedFields([]byte(tc.doc), []byte(tc.patch))
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tc.want != "") {
				t.Fatalf("ok = %v, want %v", ok, tc.want != "")
			}
			if !ok {
				return
			}
			jsonEqual(t, got, tc.want)
			// The decoded document is left as it was.
			if want, _ := patch.DecodeObjectWithoutManagedFields([]byte(tc.doc)); !cmp.Equal(live, want) {
				t.Errorf("document after the merge (-want +got):\n%s", cmp.Diff(want, live))
			}
		})
	}
	if _, _, ok, err := patch.MergePatchWithoutManagedFields([]byte(`[]`), []byte(`{}`)); !ok || err == nil {
		t.Errorf("a document that is not an object: ok %v, error %v", ok, err)
	}
}

// TestMergePatchObjectWithoutManagedFields checks that a merge patch
// given the document's form patches that form, not the document, and
// leaves it as it was.
func TestMergePatchObjectWithoutManagedFields(t *testing.T) {
	doc := []byte(`{"metadata":{"name":"a","managedFields":[{"manager":"m"}]},"spec":{"n":1}}`)
	form := map[string]any{"metadata": map[string]any{"name": "a"}, "spec": map[string]any{"n": int64(1), "typed": "yes"}}
	got, live, ok, err := patch.MergePatchObjectWithoutManagedFields(doc, form, []byte(`{"spec":{"n":2}}`))
	if err != nil || !ok {
		t.Fatalf("ok %v, error %v", ok, err)
	}
	jsonEqual(t, got, `{"metadata":{"name":"a"},"spec":{"n":2,"typed":"yes"}}`)
	want := map[string]any{"metadata": map[string]any{"name": "a"}, "spec": map[string]any{"n": int64(1), "typed": "yes"}}
	if diff := cmp.Diff(want, live); diff != "" {
		t.Errorf("live (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, form); diff != "" {
		t.Errorf("form after the merge (-want +got):\n%s", diff)
	}
	got, _, _, _ = patch.MergePatchObjectWithoutManagedFields(doc, nil, []byte(`{"spec":{"n":2}}`))
	jsonEqual(t, got, `{"metadata":{"name":"a"},"spec":{"n":2}}`)
}
