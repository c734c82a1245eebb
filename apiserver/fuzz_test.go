package apiserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// fuzzWrite is one kind of write FuzzWrites sends its body as, to the
// object f of a Go-typed kind (Widget) or of a run-time kind (Cog, from an
// OpenAPI schema, stored as Unstructured).
type fuzzWrite struct {
	base, method, path, contentType string
}

var fuzzWrites = []fuzzWrite{
	{widgetsPath, "PATCH", "/f", "application/json-patch+json"},
	{widgetsPath, "PATCH", "/f", "application/merge-patch+json"},
	{widgetsPath, "PATCH", "/f", "application/strategic-merge-patch+json"},
	{widgetsPath, "PATCH", "/f?fieldManager=fuzz&force=true", "application/apply-patch+yaml"},
	{widgetsPath, "PUT", "/f", "application/json"},
	{widgetsPath, "PATCH", "/f/status", "application/merge-patch+json"},
	{widgetsPath, "PUT", "/f/scale", "application/json"},
	{widgetsPath, "POST", "", "application/yaml"},
	{cogsPath, "PATCH", "/f", "application/json-patch+json"},
	{cogsPath, "PATCH", "/f", "application/merge-patch+json"},
	{cogsPath, "PATCH", "/f?fieldManager=fuzz&force=true", "application/apply-patch+yaml"},
	{cogsPath, "PUT", "/f", "application/json"},
	{cogsPath, "PATCH", "/f/status", "application/merge-patch+json"},
	{cogsPath, "POST", "", "application/yaml"},
	{cogsPath, "POST", "", "application/cbor"},
}

// fuzzCreates is the body that creates f, per base path.
var fuzzCreates = map[string]string{
	widgetsPath: `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"f"},"spec":{"color":"red","ports":[{"name":"a","port":1}]}}`,
	cogsPath:    cog("f", `{"teeth":12,"extra":{"a":[1,{"b":"c"}]}}`),
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
		{8, `[{"op":"add","path":"/spec/extra/a/-","value":1e308}]`},
		{9, `{"spec":{"extra":{"a":null,"d":{"e":[[[]]]}}}}`},
		{10, "apiVersion: dyn.example.com/v1\nkind: Cog\nmetadata:\n  name: f\nspec:\n  teeth: 13\n  extra: {x: [1, 2]}\n"},
		{11, cog("f", `{"teeth":12,"extra":{"x":1e999}}`)},
		{12, `{"status":{"ok":true}}`},
		{13, "apiVersion: dyn.example.com/v1\nkind: Cog\nmetadata:\n  generateName: g-\nspec:\n  teeth: 4\n"},
		{14, "\xa1\x64kind\x63Cog"},
	}
	for _, s := range seeds {
		f.Add(uint8(s.write), []byte(s.body))
	}
	srv := apiserver.New(apiserver.Options{})
	srv.Register(widgetKind())
	srv.Register(cogKind(f))
	if err := srv.Err(); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	serve := func(method, path, contentType string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, bytes.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		w := fuzzWrites[int(which)%len(fuzzWrites)]
		if rec := serve("GET", w.base+"/f", "", nil); rec.Code == http.StatusNotFound {
			if rec := serve("POST", w.base, "application/json", []byte(fuzzCreates[w.base])); rec.Code != http.StatusCreated {
				t.Fatalf("create: %d %s", rec.Code, rec.Body)
			}
		}
		rec := serve(w.method, w.base+w.path, w.contentType, body)
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
		got := serve("GET", w.base+"/f", "", nil)
		if got.Code != http.StatusOK {
			t.Fatalf("GET after %s %s: %d %s", w.method, w.path, got.Code, got.Body)
		}
		var stored struct {
			meta.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(got.Body.Bytes(), &stored); err != nil || stored.Name != "f" {
			t.Fatalf("stored object unreadable after %s %s (%v): %s", w.method, w.path, err, got.Body)
		}
		if _, err := strconv.ParseInt(stored.ResourceVersion, 10, 64); err != nil {
			t.Fatalf("resourceVersion %q", stored.ResourceVersion)
		}
		if rec.Code == http.StatusOK && w.path == "/f" && !bytes.Equal(rec.Body.Bytes(), got.Body.Bytes()) {
			t.Fatalf("%s answered\n%s\nbut GET reads\n%s", w.method, rec.Body, got.Body)
		}
		if list := serve("GET", w.base, "", nil); list.Code != http.StatusOK || !bytes.Contains(list.Body.Bytes(), []byte(`"name":"f"`)) {
			t.Fatalf("list after %s %s: %d %s", w.method, w.path, list.Code, list.Body)
		}
	})
}
