package eventsv1_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/kinds/eventsv1"
)

// TestEventGeneration: kube-apiserver's Event strategy keeps no
// generation, through either API: a create stores none (or the one its
// body states), and an update or a merge patch that changes the event
// leaves it as it was.
func TestEventGeneration(t *testing.T) {
	s := apiserver.New(apiserver.Options{})
	s.Register(corev1.EventKind()).Register(eventsv1.EventKind())
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	base := ts.URL

	core := `{"apiVersion":"v1","kind":"Event","metadata":{"name":"NAME"GEN},
		"involvedObject":{"kind":"Widget","namespace":"default","name":"w"},"reason":"Pulled","message":"pulled","type":"Normal"}`
	events := `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"NAME"GEN},
		"eventTime":"2026-01-02T03:04:05.000001Z","reportingController":"example.com/widgets","reportingInstance":"widgets-1",
		"action":"Scale","reason":"Scaled","note":"to 3","type":"Normal","regarding":{"kind":"Widget","namespace":"default","name":"w"}}`
	// What an update changes: the reason of a core Event, the series of
	// an events.k8s.io one (whose reason is immutable).
	reason := func(e map[string]any) { e["reason"] = "Again" }
	series := func(e map[string]any) {
		e["series"] = map[string]any{"count": 2, "lastObservedTime": "2026-01-02T03:05:05.000000Z"}
	}
	for _, c := range []struct {
		name, path, body, gen string
		edit                  func(map[string]any)
		patch                 string
		want                  any // the generation throughout
	}{
		{"core", coreEvents, core, "", reason, `{"message":"pulled again","count":2}`, nil},
		{"core with a generation", coreEvents, core, `,"generation":5`, reason, `{"message":"pulled again","metadata":{"generation":9}}`, 5.0},
		{"events.k8s.io", eventsEvents, events, "", series, `{"series":{"count":3,"lastObservedTime":"2026-01-02T03:06:05.000000Z"}}`, nil},
		{"events.k8s.io with a generation", eventsEvents, events, `,"generation":3`, series, `{"series":{"count":3,"lastObservedTime":"2026-01-02T03:06:05.000000Z"}}`, 3.0},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := strings.ReplaceAll(strings.ToLower(c.name), " ", "-")
			name = strings.ReplaceAll(name, ".", "-")
			body := strings.Replace(strings.Replace(c.body, "NAME", name, 1), "GEN", c.gen, 1)
			created := call(t, "POST", base+c.path, body, http.StatusCreated)
			if g := at(created, "metadata.generation"); g != c.want {
				t.Errorf("create: generation %v, want %v", g, c.want)
			}
			c.edit(created)
			if c.want != nil {
				created["metadata"].(map[string]any)["generation"] = 7
			}
			updated := call(t, "PUT", base+c.path+"/"+name, mustJSON(t, created), http.StatusOK)
			if g := at(updated, "metadata.generation"); g != c.want {
				t.Errorf("update: generation %v, want %v", g, c.want)
			}
			patched := callPatch(t, base+c.path+"/"+name, c.patch)
			if g := at(patched, "metadata.generation"); g != c.want {
				t.Errorf("merge patch: generation %v, want %v", g, c.want)
			}
			if at(patched, "metadata.resourceVersion") == at(updated, "metadata.resourceVersion") {
				t.Errorf("merge patch %s changed nothing", c.patch)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// callPatch sends a merge patch and decodes the JSON answer, failing
// unless it is 200 OK.
func callPatch(t *testing.T, url, patch string) map[string]any {
	t.Helper()
	return callWith(t, "PATCH", url, "application/merge-patch+json", patch, http.StatusOK)
}

// callWith sends a request with a body of the given type and decodes the
// JSON answer, failing unless its status is code.
func callWith(t *testing.T, method, url, contentType, body string, code int) map[string]any {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != code || json.Unmarshal(b, &out) != nil {
		t.Fatalf("%s %s: %d %s, want %d", method, url, resp.StatusCode, b, code)
	}
	return out
}
