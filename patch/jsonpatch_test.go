package patch_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

const jsonPatchDoc = `{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":3,"tags":["x","y"],"ports":[{"name":"http","port":80}]}}`

func TestJSONPatchApplies(t *testing.T) {
	tests := []struct {
		name, patch, want string
	}{
		{"add field", `[{"op":"add","path":"/spec/color","value":"red"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":3,"color":"red","tags":["x","y"],"ports":[{"name":"http","port":80}]}}`},
		{"add replaces an existing field", `[{"op":"add","path":"/spec/replicas","value":5}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":5,"tags":["x","y"],"ports":[{"name":"http","port":80}]}}`},
		{"add inserts into a list", `[{"op":"add","path":"/spec/tags/1","value":"z"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":3,"tags":["x","z","y"],"ports":[{"name":"http","port":80}]}}`},
		{"add appends with -", `[{"op":"add","path":"/spec/tags/-","value":"z"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":3,"tags":["x","y","z"],"ports":[{"name":"http","port":80}]}}`},
		{"add at a negative index", `[{"op":"add","path":"/spec/tags/-1","value":"z"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":3,"tags":["x","y","z"],"ports":[{"name":"http","port":80}]}}`},
		{"escaped label key", `[{"op":"add","path":"/metadata/labels/example.com~1team","value":"p"},{"op":"add","path":"/metadata/labels/a~0b","value":"q"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1","example.com/team":"p","a~b":"q"}},"spec":{"replicas":3,"tags":["x","y"],"ports":[{"name":"http","port":80}]}}`},
		{"remove", `[{"op":"remove","path":"/spec/tags/0"},{"op":"remove","path":"/metadata/labels"}]`,
			`{"metadata":{"name":"w"},"spec":{"replicas":3,"tags":["y"],"ports":[{"name":"http","port":80}]}}`},
		{"replace", `[{"op":"replace","path":"/spec/ports/0/port","value":8080}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":3,"tags":["x","y"],"ports":[{"name":"http","port":8080}]}}`},
		// kube's JSON patch library lets replace create a missing field;
		// kubectl users rely on it.
		{"replace a missing field adds it", `[{"op":"replace","path":"/spec/color","value":"red"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":3,"color":"red","tags":["x","y"],"ports":[{"name":"http","port":80}]}}`},
		{"move", `[{"op":"move","from":"/spec/tags","path":"/spec/labels"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":3,"labels":["x","y"],"ports":[{"name":"http","port":80}]}}`},
		{"copy", `[{"op":"copy","from":"/spec/ports/0","path":"/spec/ports/-"},{"op":"replace","path":"/spec/ports/1/name","value":"alt"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":3,"tags":["x","y"],"ports":[{"name":"http","port":80},{"name":"alt","port":80}]}}`},
		{"copy from a missing field copies null", `[{"op":"copy","from":"/spec/none","path":"/spec/color"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":3,"color":null,"tags":["x","y"],"ports":[{"name":"http","port":80}]}}`},
		{"test passes then change", `[{"op":"test","path":"/spec/replicas","value":3},{"op":"test","path":"/spec/ports","value":[{"port":80,"name":"http"}]},{"op":"replace","path":"/spec/replicas","value":4}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":4,"tags":["x","y"],"ports":[{"name":"http","port":80}]}}`},
		{"test of a missing field against null", `[{"op":"test","path":"/spec/color","value":null}]`, jsonPatchDoc},
		{"empty patch", `[]`, jsonPatchDoc},
		{"null patch", `null`, jsonPatchDoc},
		{"replace the whole document", `[{"op":"replace","path":"","value":{"kind":"K"}}]`, `{"kind":"K"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := patch.JSONPatch([]byte(jsonPatchDoc), []byte(tc.patch), 0)
			if err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, got, tc.want)
		})
	}
}

func TestJSONPatchDoesNotModifyInput(t *testing.T) {
	doc := []byte(jsonPatchDoc)
	if _, err := patch.JSONPatch(doc, []byte(`[{"op":"remove","path":"/spec"}]`), 0); err != nil {
		t.Fatal(err)
	}
	if string(doc) != jsonPatchDoc {
		t.Errorf("input changed: %s", doc)
	}
}

func TestJSONPatchErrors(t *testing.T) {
	tests := []struct {
		name, patch string
		code        int32
		reason      meta.StatusReason
		msg         string
		cause       error
	}{
		// Malformed bodies: 400 with encoding/json's message, as kube's
		// errors.NewBadRequest(err.Error()).
		{"not JSON", `[{"op":`, 400, meta.StatusReasonBadRequest, "unexpected end of JSON input", nil},
		{"syntax", `[{"op" "add"}]`, 400, meta.StatusReasonBadRequest, "invalid character '\"' after object key", nil},
		{"an object", `{"op":"add","path":"/a","value":1}`, 400, meta.StatusReasonBadRequest, "json: cannot unmarshal object into Go value of type jsonpatch.Patch", nil},
		{"a list of strings", `["add"]`, 400, meta.StatusReasonBadRequest, "json: cannot unmarshal string into Go value of type jsonpatch.Operation", nil},
		// Operations that do not apply: 422 Invalid with the message of
		// errors.NewGenericServerResponse, and empty details.
		{"failing test", `[{"op":"test","path":"/spec/replicas","value":4},{"op":"remove","path":"/spec"}]`, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request", patch.ErrTestFailed},
		{"test of a number written differently", `[{"op":"test","path":"/spec/replicas","value":3.0}]`, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request", patch.ErrTestFailed},
		{"missing path", `[{"op":"add","path":"/spec/none/x","value":1}]`, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request", patch.ErrMissing},
		{"remove missing", `[{"op":"remove","path":"/spec/color"}]`, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request", patch.ErrMissing},
		{"index out of range", `[{"op":"replace","path":"/spec/tags/5","value":"z"}]`, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request", patch.ErrMissing},
		{"add past the end", `[{"op":"add","path":"/spec/tags/3","value":"z"}]`, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request", patch.ErrInvalidIndex},
		{"unknown op", `[{"op":"merge","path":"/spec"}]`, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request", nil},
		{"no path", `[{"op":"add","value":1}]`, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request", patch.ErrMissing},
		{"path without slash", `[{"op":"remove","path":"spec"}]`, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request", patch.ErrMissing},
		// The result must be an object, as kube's decoder requires.
		{"replace the document by a list", `[{"op":"replace","path":"","value":[1]}]`, 422, meta.StatusReasonInvalid, `"" is invalid: patch: Invalid value: "[1]": json: cannot unmarshal array into Go value of type map[string]interface {}`, patch.ErrNotObject},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := patch.JSONPatch([]byte(jsonPatchDoc), []byte(tc.patch), 0)
			msg := tc.msg
			if tc.code == 422 && strings.HasPrefix(msg, `"" `) {
				msg = " " + msg
			}
			st := wantStatus(t, err, tc.code, tc.reason, msg)
			if tc.code == 422 && st.Details == nil {
				t.Errorf("422 without details; kube sends {}")
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Errorf("error %v does not wrap %v", err, tc.cause)
			}
		})
	}
}

func TestJSONPatchInvalidResultStatus(t *testing.T) {
	_, err := patch.JSONPatch([]byte(`{"a":1}`), []byte(`[{"op":"replace","path":"","value":["x"]}]`), 0)
	st := statusOf(t, err)
	if st.Details == nil || len(st.Details.Causes) != 1 {
		t.Fatalf("details %+v", st.Details)
	}
	c := st.Details.Causes[0]
	if c.Type != meta.CauseTypeFieldValueInvalid || c.Field != "patch" ||
		c.Message != `Invalid value: "[\"x\"]": json: cannot unmarshal array into Go value of type map[string]interface {}` {
		t.Errorf("cause %+v", c)
	}
}

func TestJSONPatchTooManyOperations(t *testing.T) {
	ops := strings.Repeat(`{"op":"test","path":"/spec/replicas","value":3},`, patch.MaxJSONPatchOperations)
	if _, err := patch.JSONPatch([]byte(jsonPatchDoc), []byte("["+strings.TrimSuffix(ops, ",")+"]"), 0); err != nil {
		t.Fatalf("%d operations: %v", patch.MaxJSONPatchOperations, err)
	}
	_, err := patch.JSONPatch([]byte(jsonPatchDoc), []byte("["+ops+`{"op":"test","path":"/spec/replicas","value":3}]`), 0)
	wantStatus(t, err, http.StatusRequestEntityTooLarge, meta.StatusReasonRequestEntityTooLarge,
		"Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001")
}

func TestJSONPatchCopyLimit(t *testing.T) {
	doc := fmt.Sprintf(`{"big":%q}`, strings.Repeat("x", 100))
	p := `[{"op":"copy","from":"/big","path":"/a"},{"op":"copy","from":"/big","path":"/b"}]`
	if _, err := patch.JSONPatch([]byte(doc), []byte(p), 300); err != nil {
		t.Fatalf("within the limit: %v", err)
	}
	_, err := patch.JSONPatch([]byte(doc), []byte(p), 150)
	wantStatus(t, err, 422, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request")
}
