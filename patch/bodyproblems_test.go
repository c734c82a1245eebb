package patch_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/status"
)

func TestBodyProblems(t *testing.T) {
	tests := []struct {
		name, patchType, body string
		want                  []string
		wantErr               string
	}{
		{"JSON patch unknown field", patch.JSONPatchType, `[{"op":"add","path":"/a","value":1,"colour":"red"}]`,
			[]string{`json patch unknown field "[0].colour"`}, ""},
		{"JSON patch duplicate field", patch.JSONPatchType, `[{"op":"add","op":"remove","path":"/a"}]`,
			[]string{`json patch duplicate field "[0].op"`}, ""},
		{"JSON patch of the wrong shape", patch.JSONPatchType, `{"op":"add"}`, nil,
			"error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"},
		{"merge patch duplicate", patch.MergePatchType, `{"spec":{"a":1,"a":2}}`, []string{`duplicate field "spec.a"`}, ""},
		{"merge patch malformed", patch.MergePatchType, `{"spec":`, nil, "error decoding patch: unexpected end of JSON input"},
		{"strategic merge patch duplicate", patch.StrategicMergePatchType, `{"a":1,"a":2}`, []string{`duplicate field "a"`}, ""},
		{"clean", patch.MergePatchType, `{"spec":{"color":"red"}}`, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			problems, err := patch.BodyProblems(tc.patchType, []byte(tc.body))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || status.CodeOf(err) != 400 {
					t.Fatalf("err = %v (code %d), want a 400 containing %q", err, status.CodeOf(err), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.Error())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("problems %q, want %q", got, tc.want)
			}
		})
	}
}
