package cel_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// gear is a Go kind whose rules come from struct tags and from a
// ValidationRules method.
type gear struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            gearSpec `json:"spec,omitempty"`
}

type gearSpec struct {
	Teeth int32  `json:"teeth,omitempty"`
	Size  string `json:"size,omitempty" maxLength:"8" rule:"self == oldSelf" message:"size is immutable once set"`
	Color string `json:"color,omitempty" maxLength:"16"`
}

func (gearSpec) ValidationRules() []schema.Rule {
	return []schema.Rule{{Rule: "!has(self.color) || self.teeth >= 3", Message: "a colored gear has at least 3 teeth",
		FieldPath: ".teeth"}}
}

func gearKind() apiserver.Kind {
	return apiserver.Kind{Group: "cel.example.com", Version: "v1", Kind: "Gear", Resource: "gears", Namespaced: true,
		New: func() meta.Object { return &gear{} }}
}

func request(t *testing.T, method, url, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestServerEvaluatesRules checks a server with the engine evaluates a
// Go kind's rules on create and update, and answers 422 with the rule's
// message, field and reason.
func TestServerEvaluatesRules(t *testing.T) {
	engine, err := cel.New(cel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{RuleEngine: engine})
	if err := srv.Register(gearKind()).Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	url := ts.URL + "/apis/cel.example.com/v1/namespaces/default/gears"
	body := func(name, spec string) string {
		return `{"apiVersion":"cel.example.com/v1","kind":"Gear","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	code, _, out := request(t, "POST", url, body("g", `{"teeth":2,"color":"red","size":"L"}`))
	var st meta.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 422 {
		t.Fatalf("create: %d %s", code, out)
	}
	want := `Gear.cel.example.com "g" is invalid: spec.teeth: Invalid value: a colored gear has at least 3 teeth`
	if st.Message != want || st.Details.Causes[0].Field != "spec.teeth" || st.Details.Causes[0].Type != meta.CauseTypeFieldValueInvalid {
		t.Errorf("create: %s", out)
	}
	if code, _, out := request(t, "POST", url, body("g", `{"teeth":12,"color":"red","size":"L"}`)); code != 201 {
		t.Fatalf("create: %d %s", code, out)
	}
	code, _, out = request(t, "PUT", url+"/g", body("g", `{"teeth":12,"color":"red","size":"M"}`))
	if code != 422 || !bytes.Contains([]byte(out), []byte(`spec.size: Invalid value: \"M\": size is immutable once set`)) {
		t.Errorf("update: %d %s", code, out)
	}
	if code, _, out := request(t, "PUT", url+"/g", body("g", `{"teeth":4,"color":"blue","size":"L"}`)); code != 200 {
		t.Errorf("update: %d %s", code, out)
	}
}

// TestServerRefusesBadRules checks registration fails with the compile
// error of a rule.
func TestServerRefusesBadRules(t *testing.T) {
	engine, _ := cel.New(cel.Options{})
	s, err := schema.FromOpenAPI([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}},
	  "x-kubernetes-validations":[{"rule":"self.b == 1"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = apiserver.New(apiserver.Options{RuleEngine: engine}).Register(apiserver.Kind{Group: "cel.example.com", Version: "v1",
		Kind: "Bad", Resource: "bads", Schema: s, New: func() meta.Object { return &meta.Unstructured{} }}).Err()
	if err == nil || !strings.Contains(err.Error(), "undefined field 'b'") {
		t.Errorf("registration: %v", err)
	}
}
