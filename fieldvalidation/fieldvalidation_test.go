package fieldvalidation

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

func TestParse(t *testing.T) {
	tests := []struct {
		value   string
		want    Directive
		wantErr string
	}{
		{"", Warn, ""},
		{"Ignore", Ignore, ""},
		{"Warn", Warn, ""},
		{"Strict", Strict, ""},
		{"strict", "", `fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"`},
	}
	for _, tc := range tests {
		got, errs := Parse(tc.value)
		if got != tc.want {
			t.Errorf("Parse(%q) = %q, want %q", tc.value, got, tc.want)
		}
		if msg := errString(errs); msg != tc.wantErr {
			t.Errorf("Parse(%q) errors %q, want %q", tc.value, msg, tc.wantErr)
		}
		if tc.wantErr != "" && (len(errs) != 1 || errs[0].Type != "FieldValueNotSupported") {
			t.Errorf("Parse(%q) errors %+v, want one FieldValueNotSupported", tc.value, errs)
		}
	}
}

func errString(errs status.FieldErrors) string {
	if errs == nil {
		return ""
	}
	return errs.Error()
}

func TestCheck(t *testing.T) {
	problems := []error{Unknown("spec.colour"), errors.New(`duplicate field "spec.color"`)}
	tests := []struct {
		d            Directive
		problems     []error
		wantWarnings []string
		wantErr      string
	}{
		{Ignore, problems, nil, ""},
		{Warn, problems, []string{`unknown field "spec.colour"`, `duplicate field "spec.color"`}, ""},
		{Strict, problems, nil, `strict decoding error: unknown field "spec.colour", duplicate field "spec.color"`},
		{Strict, nil, nil, ""},
		{Warn, nil, nil, ""},
	}
	for _, tc := range tests {
		warnings, err := tc.d.Check(tc.problems)
		if !slices.Equal(warnings, tc.wantWarnings) {
			t.Errorf("%s: warnings %q, want %q", tc.d, warnings, tc.wantWarnings)
		}
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: error %v", tc.d, err)
		case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
			t.Errorf("%s: error %v, want %s", tc.d, err, tc.wantErr)
		case tc.wantErr != "" && (status.CodeOf(err) != 400 || status.ReasonOf(err) != meta.StatusReasonBadRequest):
			t.Errorf("%s: status %d %s, want 400 BadRequest", tc.d, status.CodeOf(err), status.ReasonOf(err))
		}
	}
}

func TestDecode(t *testing.T) {
	type port struct {
		Name string `json:"name"`
	}
	type object struct {
		Spec struct {
			Ports  []port           `json:"ports"`
			Labels map[string]port  `json:"labels"`
			Any    map[string]any   `json:"any"`
			Counts map[string]int64 `json:"counts"`
		} `json:"spec"`
	}
	tests := []struct {
		name, yaml   string
		json         string
		wantProblems []string
		wantErr      string
	}{
		{name: "unknown field in a list item", json: `{"spec":{"ports":[{"name":"a"},{"name":"b","colour":1}]}}`,
			wantProblems: []string{`unknown field "spec.ports[1].colour"`}},
		{name: "unknown field in a map value", json: `{"spec":{"labels":{"k":{"x":1}}}}`,
			wantProblems: []string{`unknown field "spec.labels.k.x"`}},
		{name: "duplicate at the root and inside", json: `{"spec":{"any":{"a":1,"a":2}},"spec":{}}`,
			wantProblems: []string{`duplicate field "spec.any.a"`, `duplicate field "spec"`}},
		{name: "untyped values are not unknown", json: `{"spec":{"any":{"anything":{"goes":1}}}}`},
		{name: "malformed", json: `{"spec":`, wantErr: "unexpected end of JSON input"},
		{name: "wrong type", json: `{"spec":{"counts":{"a":"x"}}}`, wantErr: "cannot unmarshal string"},
		{name: "YAML duplicate key", yaml: "spec:\n  ports: []\n  ports: []\n",
			wantProblems: []string{"yaml: unmarshal errors:\n  line 3: key \"ports\" already set in map"}},
		{name: "YAML unknown field", yaml: "spec:\n  colour: red\n", wantProblems: []string{`unknown field "spec.colour"`}},
		{name: "YAML malformed", yaml: "spec: [\n", wantErr: "error converting YAML to JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var obj object
			var problems []error
			var err error
			if tc.yaml != "" {
				problems, err = DecodeYAML([]byte(tc.yaml), &obj)
			} else {
				problems, err = DecodeJSON([]byte(tc.json), &obj)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
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
			if !slices.Equal(got, tc.wantProblems) {
				t.Errorf("problems %q, want %q", got, tc.wantProblems)
			}
		})
	}
}

// rawDoc keeps its document as raw JSON, as a definition keeps a schema;
// its shadow types the document.
type rawDoc struct {
	Name string          `json:"name"`
	Doc  json.RawMessage `json:"doc"`
}

func (*rawDoc) StrictShadow() any {
	return &struct {
		Name string `json:"name"`
		Doc  struct {
			Known int `json:"known"`
		} `json:"doc"`
	}{}
}

// TestDecodeShadowed: a Shadowed value's problems are its shadow's, in
// the order and with the paths of the JSON, and the value itself is
// decoded as it decodes.
func TestDecodeShadowed(t *testing.T) {
	var v rawDoc
	problems, err := DecodeJSON([]byte(`{"name":"a","doc":{"known":1,"other":2,"known":3},"extra":true}`), &v)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.Error())
	}
	want := []string{`unknown field "doc.other"`, `duplicate field "doc.known"`, `unknown field "extra"`}
	if !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	if v.Name != "a" || string(v.Doc) != `{"known":1,"other":2,"known":3}` {
		t.Errorf("decoded %+v", v)
	}
	if _, err := DecodeJSON([]byte(`{"doc":{"known":"x"}}`), &v); err == nil {
		t.Error("a value of the wrong type in the shadow decoded")
	}
}
