package apiserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// modeRules stands for a rule engine: spec.mode "bad" breaks a rule,
// "ratchet" breaks one that an unchanged value lets through, and an
// update must see the stored object as old.
type modeRules struct{}

func (modeRules) Compile(s *schema.Schema, _ status.Path) (schema.RuleValidator, error) {
	if strings.Contains(s.Properties["spec"].XValidations[0].Rule, "syntax error") {
		return nil, errRuleSyntax
	}
	return modeRules{}, nil
}

var errRuleSyntax = status.BadRequest("compilation failed")

func (modeRules) Validate(_ context.Context, obj, old map[string]any) (status.FieldErrors, []string) {
	mode, _ := obj["spec"].(map[string]any)["mode"].(string)
	var oldMode string
	if old != nil {
		oldMode, _ = old["spec"].(map[string]any)["mode"].(string)
	}
	switch {
	case mode == "bad":
		return status.FieldErrors{status.InvalidOmitValue(status.NewPath("spec"), "mode may not be bad")}, nil
	case mode == "ratchet" && oldMode == "ratchet":
		return nil, []string{"spec: Invalid value: mode is deprecated"}
	}
	return nil, nil
}

const ruledDoc = `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: self.mode != 'bad'
      message: mode may not be bad
    properties:
      mode: {type: string, maxLength: 7}
      count: {type: integer, maximum: 1}
`

func ruledKind(t testing.TB) apiserver.Kind {
	t.Helper()
	s, err := schema.FromOpenAPI([]byte(ruledDoc))
	if err != nil {
		t.Fatal(err)
	}
	return apiserver.Kind{Group: "dyn.example.com", Version: "v1", Kind: "Ruled", Resource: "ruleds",
		Namespaced: true, Schema: s, New: func() meta.Object { return &meta.Unstructured{} }}
}

// TestRulesNeedAnEngine checks a kind with rules is refused by a server
// without a rule engine, and by one whose engine refuses the rules.
func TestRulesNeedAnEngine(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	if err := srv.Register(ruledKind(t)).Err(); err == nil || !strings.Contains(err.Error(), "no rule engine") {
		t.Errorf("without an engine: %v", err)
	}
	k := ruledKind(t)
	k.Schema.Properties["spec"].XValidations[0].Rule = "syntax error"
	srv = apiserver.New(apiserver.Options{RuleEngine: modeRules{}})
	if err := srv.Register(k).Err(); err == nil || !strings.Contains(err.Error(), "compilation failed") {
		t.Errorf("with a bad rule: %v", err)
	}
}

// TestRuleErrorsAndWarnings checks broken rules are causes of the 422
// next to the schema's own errors, and ratcheted ones Warning headers.
func TestRuleErrorsAndWarnings(t *testing.T) {
	srv := apiserver.New(apiserver.Options{RuleEngine: modeRules{}})
	if err := srv.Register(ruledKind(t)).Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	path := "/apis/dyn.example.com/v1/namespaces/default/ruleds"
	obj := func(mode string) string {
		return `{"apiVersion":"dyn.example.com/v1","kind":"Ruled","metadata":{"name":"r"},"spec":{"mode":"` + mode + `"}}`
	}
	r := do(t, ts, "POST", path, "application/json", `{"apiVersion":"dyn.example.com/v1","kind":"Ruled","metadata":{"name":"x"},"spec":{"mode":"bad","extra":1}}`)
	st := decodeStatus(t, r)
	want := `Ruled.dyn.example.com "x" is invalid: spec: Invalid value: mode may not be bad`
	if r.code != http.StatusUnprocessableEntity || st.Message != want || len(st.Details.Causes) != 1 {
		t.Errorf("create: %d %q %+v", r.code, st.Message, st.Details)
	}
	r = do(t, ts, "POST", path, "application/json", `{"apiVersion":"dyn.example.com/v1","kind":"Ruled","metadata":{"name":"y"},"spec":{"mode":"bad","count":5}}`)
	if st := decodeStatus(t, r); len(st.Details.Causes) != 2 || st.Details.Causes[1].Message != "Invalid value: mode may not be bad" {
		t.Errorf("rule errors are not listed after the schema's: %+v", st.Details.Causes)
	}
	r = do(t, ts, "POST", path, "application/json", `{"apiVersion":"dyn.example.com/v1","kind":"Ruled","metadata":{"name":"z"},"spec":{"mode":"bad","count":"five"}}`)
	want = `Ruled.dyn.example.com "z" is invalid: [spec.count: Invalid value: "string": spec.count in body must be of type integer: "string", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`
	if st := decodeStatus(t, r); st.Message != want {
		t.Errorf("rules ran on an object of the wrong shape:\n%s\nwant\n%s", st.Message, want)
	}
	if r := do(t, ts, "POST", path, "application/json", obj("ratchet")); r.code != http.StatusCreated || r.header.Get("Warning") != "" {
		t.Fatalf("create: %d %s %q", r.code, r.body, r.header.Get("Warning"))
	}
	r = do(t, ts, "PUT", path+"/r", "application/json", obj("ratchet"))
	if want := `299 - "spec: Invalid value: mode is deprecated"`; r.code != http.StatusOK || r.header.Get("Warning") != want {
		t.Errorf("update: %d %s warning %q", r.code, r.body, r.header.Get("Warning"))
	}
}
