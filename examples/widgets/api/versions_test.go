package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/examples/widgets/api"
	"github.com/kapi-dev/kapi/meta"
)

// TestWidgetV1beta1Validation writes Widgets through v1beta1 and v1
// breaking the bounds and CEL rules of spec.replicas, named spec.count
// in v1beta1: each 422 names the field of the version written through.
func TestWidgetV1beta1Validation(t *testing.T) {
	rules, err := cel.New(cel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{RuleEngine: rules})
	if err := srv.Register(api.WidgetKind()).Err(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	const (
		v1      = "/apis/stable.example.com/v1/namespaces/default/widgets"
		v1beta1 = "/apis/stable.example.com/v1beta1/namespaces/default/widgets"
	)
	code, created := send(t, ts, "POST", v1beta1, `{"metadata":{"name":"w"},"spec":{"count":2,"color":"red","size":"L","serial":"SN-7"}}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, created)
	}
	var w struct {
		meta.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(created, &w); err != nil {
		t.Fatal(err)
	}
	// An update names the version it replaces (a failed one leaves it).
	rv := `"resourceVersion":"` + w.ResourceVersion + `"`
	tests := []struct {
		name, method, path, body string
		want                     []string
	}{
		{"count over its maximum", "POST", v1beta1, `{"metadata":{"name":"a"},"spec":{"count":1001}}`, []string{"spec.count"}},
		{"count under its minimum", "PUT", v1beta1 + "/w", `{"metadata":{"name":"w",` + rv + `},"spec":{"count":-1,"size":"L","serial":"SN-7"}}`, []string{"spec.count"}},
		{"serial malformed (CEL)", "POST", v1beta1, `{"metadata":{"name":"b"},"spec":{"serial":"7"}}`, []string{"spec.serial"}},
		{"serial changed (CEL, oldSelf)", "PUT", v1beta1 + "/w", `{"metadata":{"name":"w",` + rv + `},"spec":{"count":2,"serial":"SN-8"}}`, []string{"spec.serial"}},
		{"serial removed through v1 (CEL, oldSelf)", "PUT", v1 + "/w", `{"metadata":{"name":"w",` + rv + `},"spec":{"replicas":2,"size":"L"}}`, []string{"spec.serial"}},
		{"replicas over its maximum through v1", "POST", v1, `{"metadata":{"name":"a"},"spec":{"replicas":1001}}`, []string{"spec.replicas"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := send(t, ts, tc.method, tc.path, tc.body)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("%d %s, want 422", code, body)
			}
			var st meta.Status
			if err := json.Unmarshal(body, &st); err != nil || st.Details == nil {
				t.Fatalf("%v: %s", err, body)
			}
			var got []string
			for _, c := range st.Details.Causes {
				got = append(got, c.Field)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("causes %q, want %q: %s", got, tc.want, body)
			}
		})
	}
}
