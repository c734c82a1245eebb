package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/meta"
)

// TestRequiredFields checks that a Go field without omitempty that is
// neither a pointer, a slice nor a map must be present in the body of
// every write, as a required property of a custom resource must.
func TestRequiredFields(t *testing.T) {
	ts := newTestServer(t)
	createWidget(t, ts, "existing", `{"ports":[{"name":"http","port":80}]}`)
	tests := []struct {
		name, method, path, contentType, body string
		wantFields                            []string // "" when the write succeeds
	}{
		{"create without port", "POST", widgetsPath, "application/json",
			`{"metadata":{"name":"a"},"spec":{"ports":[{"name":"http"}]}}`, []string{"spec.ports[0].port"}},
		{"create without name and port, in YAML", "POST", widgetsPath, "application/yaml",
			"metadata:\n  name: b\nspec:\n  ports:\n  - port: 80\n  - {}\n", []string{"spec.ports[0].name", "spec.ports[1].name", "spec.ports[1].port"}},
		{"update without port", "PUT", widgetsPath + "/existing", "application/json",
			`{"metadata":{"name":"existing"},"spec":{"ports":[{"name":"http"}]}}`, []string{"spec.ports[0].port"}},
		{"merge patch adding a port without port", "PATCH", widgetsPath + "/existing", "application/merge-patch+json",
			`{"spec":{"ports":[{"name":"https"}]}}`, []string{"spec.ports[0].port"}},
		{"apply creating a port without port", "PATCH", widgetsPath + "/applied?fieldManager=m", "application/apply-patch+yaml",
			"apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: applied\nspec:\n  ports:\n  - name: http\n", []string{"spec.ports[0].port"}},
		{"an explicit zero is present", "POST", widgetsPath, "application/json",
			`{"metadata":{"name":"zero"},"spec":{"ports":[{"name":"http","port":0}]}}`, nil},
		{"strategic merge patch keeping the stored port", "PATCH", widgetsPath + "/existing", "application/strategic-merge-patch+json",
			`{"spec":{"color":"blue"}}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts, tc.method, tc.path, tc.contentType, tc.body)
			if tc.wantFields == nil {
				if r.code >= 300 {
					t.Fatalf("%d %s", r.code, r.body)
				}
				return
			}
			if r.code != http.StatusUnprocessableEntity {
				t.Fatalf("code %d, want 422; body %s", r.code, r.body)
			}
			st := decodeStatus(t, r)
			if st.Reason != meta.StatusReasonInvalid || st.Details == nil {
				t.Fatalf("status %+v", st)
			}
			var got []string
			for _, c := range st.Details.Causes {
				if c.Type != "FieldValueRequired" {
					t.Errorf("cause %+v, want FieldValueRequired", c)
				}
				got = append(got, c.Field)
			}
			if strings.Join(got, " ") != strings.Join(tc.wantFields, " ") {
				t.Errorf("causes on %q, want %q; message %s", got, tc.wantFields, st.Message)
			}
		})
	}
	// Nothing was stored by the refused writes.
	if r := do(t, ts, "GET", widgetsPath+"/a", "", ""); r.code != http.StatusNotFound {
		t.Errorf("a: %d", r.code)
	}
	if w := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/existing", "", "")); len(w.Spec.Ports) != 1 || w.Spec.Ports[0].Port != 80 {
		t.Errorf("existing changed: %+v", w.Spec)
	}
}
