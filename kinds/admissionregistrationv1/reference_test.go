package admissionregistrationv1_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// referenceCase is a dry-run create and what kube-apiserver v1.37
// answered (testdata/reference.json): the object it would store, less its
// metadata, or a Status whose code, reason, message and causes kapi must
// match.
type referenceCase struct {
	Name      string          `json:"name"`
	Resource  string          `json:"resource"`
	Body      json.RawMessage `json:"body"`
	Reference answer          `json:"reference"`
}

type answer struct {
	Code    int             `json:"code,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
	Causes  []cause         `json:"causes,omitempty"`
	Object  json.RawMessage `json:"object,omitempty"`
}

type cause struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// newServer serves the six kinds without a CEL check.
func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := apiserver.New(apiserver.Options{})
	for _, k := range admissionregistrationv1.Kinds(admissionregistrationv1.Options{}) {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts
}

// TestReferenceAnswers sends each recorded object to kapi as a dry run
// and compares the answer with kube-apiserver's: the defaults of a valid
// object, and for an invalid one every cause, in kube's order and words
// (webhook names, side effects, review versions, client configs, rules,
// selectors, match conditions, policies' match constraints, param kinds,
// validations, variables, audit annotations, mutations, bindings' param
// references and actions, the reserved static suffix).
func TestReferenceAnswers(t *testing.T) {
	data, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []referenceCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	ts := newServer(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got := dryRunCreate(t, ts.URL, c.Resource, c.Body)
			if diff := cmp.Diff(normalize(t, c.Reference), normalize(t, got)); diff != "" {
				t.Errorf("answer differs from kube-apiserver's (-kube +kapi):\n%s", diff)
			}
		})
	}
}

// normalize decodes an answer's object so that key order does not count.
func normalize(t *testing.T, a answer) any {
	t.Helper()
	var obj any
	if len(a.Object) > 0 {
		if err := json.Unmarshal(a.Object, &obj); err != nil {
			t.Fatal(err)
		}
	}
	return struct {
		A   answer
		Obj any
	}{answer{Code: a.Code, Reason: a.Reason, Message: a.Message, Causes: a.Causes}, obj}
}

// dryRunCreate posts body as a dry run and returns the answer in the
// form of the recorded ones.
func dryRunCreate(t *testing.T, base, resource string, body []byte) answer {
	t.Helper()
	resp, err := http.Post(base+"/apis/admissionregistration.k8s.io/v1/"+resource+"?dryRun=All", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["kind"]) != `"Status"` {
		delete(raw, "metadata")
		delete(raw, "kind")
		delete(raw, "apiVersion")
		obj, _ := json.Marshal(raw)
		return answer{Object: obj}
	}
	var st struct {
		Code    int    `json:"code"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
		Details struct {
			Causes []cause `json:"causes"`
		} `json:"details"`
	}
	all, _ := json.Marshal(raw)
	if err := json.Unmarshal(all, &st); err != nil {
		t.Fatal(err)
	}
	return answer{Code: st.Code, Reason: st.Reason, Message: st.Message, Causes: st.Details.Causes}
}
