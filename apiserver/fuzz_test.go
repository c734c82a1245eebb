package apiserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
)

// fuzzWrite is one kind of write FuzzWrites sends its body as.
type fuzzWrite struct {
	method, path, contentType string
}

var fuzzWrites = []fuzzWrite{
	{"PATCH", "/f", "application/json-patch+json"},
	{"PATCH", "/f", "application/merge-patch+json"},
	{"PATCH", "/f", "application/strategic-merge-patch+json"},
	{"PATCH", "/f?fieldManager=fuzz&force=true", "application/apply-patch+yaml"},
	{"PUT", "/f", "application/json"},
	{"PATCH", "/f/status", "application/merge-patch+json"},
	{"PUT", "/f/scale", "application/json"},
	{"POST", "", "application/yaml"},
}

// FuzzWrites sends arbitrary bodies through every write path of the
// server: whatever the body, the answer is a Status or an object, never a
// 5xx, and the stored object stays readable, listable and identical to
// what a successful write answered.
func FuzzWrites(f *testing.F) {
	seeds := []struct {
		write int
		body  string
	}{
		{0, `[{"op":"replace","path":"/spec/color","value":"blue"}]`},
		{0, `[{"op":"test","path":"/spec/color","value":"red"},{"op":"remove","path":"/metadata"}]`},
		{1, `{"spec":{"replicas":3,"ports":[{"name":"a","port":1}]}}`},
		{1, `{"metadata":{"resourceVersion":"1"}}`},
		{2, `{"spec":{"ports":[{"name":"a","$patch":"delete"}],"$setElementOrder/ports":[{"name":"b"}]}}`},
		{3, "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: f\nspec:\n  tags: [x, x]\n"},
		{4, `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"f"},"spec":{"replicas":5000}}`},
		{5, `{"status":{"readyReplicas":-1}}`},
		{6, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"f"},"spec":{"replicas":2}}`},
		{7, "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  generateName: g-\n"},
	}
	for _, s := range seeds {
		f.Add(uint8(s.write), []byte(s.body))
	}
	srv := apiserver.New(apiserver.Options{})
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	serve := func(method, path, contentType string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, widgetsPath+path, bytes.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		if rec := serve("GET", "/f", "", nil); rec.Code == http.StatusNotFound {
			if rec := serve("POST", "", "application/json", []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"f"},"spec":{"color":"red","ports":[{"name":"a","port":1}]}}`)); rec.Code != http.StatusCreated {
				t.Fatalf("create: %d %s", rec.Code, rec.Body)
			}
		}
		w := fuzzWrites[int(which)%len(fuzzWrites)]
		rec := serve(w.method, w.path, w.contentType, body)
		// kube-apiserver answers a few bad patches with a 500 of reason
		// Unknown (an applied configuration that does not fit the schema, a
		// test or replace of the whole document without a value), and kapi
		// does the same; a panic or a storage failure is an InternalError.
		var st struct {
			Reason string `json:"reason"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &st)
		kubes500 := rec.Code == http.StatusInternalServerError && st.Reason == ""
		if (rec.Code >= 500 || rec.Code < 200) && !kubes500 {
			t.Fatalf("%s %s (%s): %d %s", w.method, w.path, w.contentType, rec.Code, rec.Body)
		}
		var answer struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil || answer.Kind == "" {
			t.Fatalf("%s %s: answer is not an object or Status (%v): %s", w.method, w.path, err, rec.Body)
		}
		got := serve("GET", "/f", "", nil)
		if got.Code != http.StatusOK {
			t.Fatalf("GET after %s %s: %d %s", w.method, w.path, got.Code, got.Body)
		}
		var stored widget
		if err := json.Unmarshal(got.Body.Bytes(), &stored); err != nil || stored.Name != "f" {
			t.Fatalf("stored object unreadable after %s %s (%v): %s", w.method, w.path, err, got.Body)
		}
		if _, err := strconv.ParseInt(stored.ResourceVersion, 10, 64); err != nil {
			t.Fatalf("resourceVersion %q", stored.ResourceVersion)
		}
		if rec.Code == http.StatusOK && w.path == "/f" && !bytes.Equal(rec.Body.Bytes(), got.Body.Bytes()) {
			t.Fatalf("%s answered\n%s\nbut GET reads\n%s", w.method, rec.Body, got.Body)
		}
		if list := serve("GET", "", "", nil); list.Code != http.StatusOK || !bytes.Contains(list.Body.Bytes(), []byte(`"name":"f"`)) {
			t.Fatalf("list after %s %s: %d %s", w.method, w.path, list.Code, list.Body)
		}
	})
}
