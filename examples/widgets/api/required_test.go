package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/examples/widgets/api"
	"github.com/kapi-dev/kapi/meta"
)

// TestRequiredFields sends a body without each required field of the
// example kinds: Widget's port name and number and condition type and
// status (Go fields without omitempty), Sprocket's spec and teeth
// (required in its OpenAPI schema).
func TestRequiredFields(t *testing.T) {
	rules, err := cel.New(cel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{RuleEngine: rules})
	sprocket, err := api.SprocketKind()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Register(api.WidgetKind()).Register(api.GadgetKind()).Register(sprocket).Err(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	const widgets = "/apis/stable.example.com/v1/namespaces/default/widgets"
	const sprockets = "/apis/stable.example.com/v1/namespaces/default/sprockets"
	if code, _ := send(t, ts, "POST", widgets, `{"metadata":{"name":"w"}}`); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	tests := []struct {
		name, method, path, body string
		want                     []string
	}{
		{"port without port", "POST", widgets, `{"metadata":{"name":"a"},"spec":{"ports":[{"name":"http"}]}}`, []string{"spec.ports[0].port"}},
		{"port without name", "POST", widgets, `{"metadata":{"name":"a"},"spec":{"ports":[{"port":80}]}}`, []string{"spec.ports[0].name"}},
		{"condition without type and status", "PUT", widgets + "/w/status",
			`{"metadata":{"name":"w"},"status":{"conditions":[{"reason":"Ready"}]}}`,
			[]string{"status.conditions[0].status", "status.conditions[0].type"}},
		{"sprocket without spec", "POST", sprockets, `{"apiVersion":"stable.example.com/v1","kind":"Sprocket","metadata":{"name":"s"}}`, []string{"spec"}},
		{"sprocket without teeth", "POST", sprockets, `{"apiVersion":"stable.example.com/v1","kind":"Sprocket","metadata":{"name":"s"},"spec":{}}`, []string{"spec.teeth"}},
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
				if c.Type == "FieldValueRequired" {
					got = append(got, c.Field)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("required causes %q, want %q: %s", got, tc.want, body)
			}
		})
	}
}

func send(t *testing.T, ts *httptest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
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
	return resp.StatusCode, b
}
