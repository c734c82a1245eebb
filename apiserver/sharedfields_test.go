package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unique"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// wholeStore is a memory store that does not keep shared parts, so that
// a server on it stores every value whole.
type wholeStore struct{ storage.Interface }

// sharedFieldsServer is a server of the widget kind on st, served as
// meta.Unstructured when unstructured is set.
func sharedFieldsServer(t *testing.T, st storage.Interface, unstructured bool) *httptest.Server {
	t.Helper()
	k := widgetKind()
	if unstructured {
		k.New = func() meta.Object { return &meta.Unstructured{} }
		k.Validate = nil
		k.SelectableFields = map[string]func(meta.Object) string{"spec.color": func(obj meta.Object) string {
			spec, _ := obj.(*meta.Unstructured).Content["spec"].(map[string]any)
			color, _ := spec["color"].(string)
			return color
		}}
	}
	return serveKinds(t, apiserver.Options{Storage: st}, k)
}

// Same-length stand-ins for what differs between two servers fed the
// same requests: uids and times.
var (
	uidPattern  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timePattern = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
)

func blankVarying(b []byte) []byte {
	b = uidPattern.ReplaceAllFunc(b, func(m []byte) []byte { return bytes.Repeat([]byte("u"), len(m)) })
	return timePattern.ReplaceAllFunc(b, func(m []byte) []byte { return bytes.Repeat([]byte("t"), len(m)) })
}

// sameAnswers reports whether two servers' answers are the same, byte for
// byte, or, for JSON documents, but for the order of managedFields
// entries: entries are ordered by their times, and the two servers' writes
// may fall on either side of a second's boundary.
func sameAnswers(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var da, db any
	if json.Unmarshal(a, &da) != nil || json.Unmarshal(b, &db) != nil {
		return false
	}
	return cmp.Equal(sortEntries(da), sortEntries(db))
}

// sortEntries sorts every managedFields list in v by the entries' JSON.
func sortEntries(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = sortEntries(e)
			if list, ok := v[k].([]any); ok && k == "managedFields" {
				slices.SortFunc(list, func(x, y any) int {
					bx, _ := json.Marshal(x)
					by, _ := json.Marshal(y)
					return bytes.Compare(bx, by)
				})
			}
		}
	case []any:
		for i, e := range v {
			v[i] = sortEntries(e)
		}
	}
	return v
}

// TestSharedManagedFieldsServeAsWhole: a server whose store keeps the
// managedFields of its values apart answers every read (objects, lists,
// Tables, partial objects, watch events, JSON and CBOR) byte for byte as
// one that stores values whole, through creates, status and spec updates,
// patches, applies, no-op updates and deletions held by finalizers, and
// for an object whose annotations read as the placeholder. Every write is
// made to an object and then to its twin, whose managedFields are the
// same when both writes fall in one second: the twin's are kept apart.
// A kind served as meta.Unstructured is served the same.
func TestSharedManagedFieldsServeAsWhole(t *testing.T) {
	for _, unstructured := range []bool{false, true} {
		t.Run(fmt.Sprintf("unstructured=%v", unstructured), func(t *testing.T) { testSharedServeAsWhole(t, unstructured) })
	}
}

func testSharedServeAsWhole(t *testing.T, unstructured bool) {
	shared, whole := memory.New(memory.Options{}), &wholeStore{memory.New(memory.Options{})}
	servers := []*httptest.Server{sharedFieldsServer(t, shared, unstructured), sharedFieldsServer(t, whole, unstructured)}
	const obj = `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"%s","labels":{"app":"w"},` +
		`"annotations":{"note":"a \"quoted\" <value>"%s}%s},"spec":{"replicas":2,"color":"red","ports":[{"name":"http","port":80}]}}`
	body := func(name, annotation, extra string) string {
		return fmt.Sprintf(obj, name, annotation, extra)
	}
	apply := func(name string) string {
		return "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: " + name + "\nspec:\n  color: green\n"
	}
	type step struct {
		method, path, contentType, body string
		code                            int
	}
	// steps are the writes to the object named n.
	steps := func(n string) []step {
		return []step{
			{"POST", widgetsPath, "application/json", body("a"+n, "", ""), 201},
			{"POST", widgetsPath, "application/json", body("b"+n, "", ""), 201},
			// An annotation that encodes as the placeholder: stored whole.
			{"POST", widgetsPath, "application/json", body("c"+n, `,"managedFields":"\u0001"`, ""), 201},
			{"POST", widgetsPath, "application/json", body("d"+n, "", `,"finalizers":["example.com/hold"]`), 201},
			{"PUT", widgetsPath + "/a" + n + "/status", "application/json",
				strings.Replace(body("a"+n, "", ""), `"spec"`, `"status":{"readyReplicas":2},"spec"`, 1), 200},
			{"PATCH", widgetsPath + "/a" + n, "application/merge-patch+json", `{"spec":{"color":"blue"}}`, 200},
			{"PATCH", widgetsPath + "/b" + n + "?fieldManager=applier&force=true", "application/apply-patch+yaml", apply("b" + n), 200},
			{"PATCH", widgetsPath + "/b" + n + "?fieldManager=applier", "application/apply-patch+yaml", apply("b" + n), 200},
			{"PATCH", widgetsPath + "/c" + n, "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`, 200},
			{"DELETE", widgetsPath + "/d" + n, "", "", 200},
			{"DELETE", widgetsPath + "/b" + n, "", "", 200},
		}
	}
	write := func(s step) {
		t.Helper()
		var got [2][]byte
		for i, ts := range servers {
			r := do(t, ts, s.method, s.path, s.contentType, s.body)
			if r.code != s.code {
				t.Fatalf("%s %s on server %d: %d %s", s.method, s.path, i, r.code, r.body)
			}
			got[i] = blankVarying(r.body)
		}
		if !sameAnswers(got[0], got[1]) {
			t.Errorf("%s %s answers differ:\nshared %s\n whole %s", s.method, s.path, got[0], got[1])
		}
	}
	first, twin := steps(""), steps("2")
	for i := range first {
		write(first[i])
		write(twin[i])
	}
	// A no-op update keeps the resourceVersion.
	for _, name := range []string{"a", "a2"} {
		a := do(t, servers[0], "GET", widgetsPath+"/"+name, "", "")
		if r := do(t, servers[0], "PUT", widgetsPath+"/"+name, "application/json", string(a.body)); !bytes.Equal(r.body, a.body) {
			t.Errorf("no-op update of %s changed it:\nbefore %s\n after %s", name, a.body, r.body)
		}
	}

	reads := []struct{ path, accept string }{
		{widgetsPath + "/a", "application/json"},
		{widgetsPath + "/a2", "application/json"},
		{widgetsPath + "/c2", "application/json"},
		{widgetsPath + "/d2", "application/json"},
		{widgetsPath + "/a2", "application/cbor"},
		{widgetsPath, "application/json"},
		{widgetsPath + "?labelSelector=app%3Dw&limit=1", "application/json"},
		{widgetsPath + "?fieldSelector=spec.color%3Dblue", "application/json"},
		{widgetsPath, "application/cbor"},
		{widgetsPath, "application/json;as=Table;v=v1;g=meta.k8s.io"},
		{widgetsPath + "?includeObject=Object", "application/json;as=Table;v=v1;g=meta.k8s.io"},
		{widgetsPath, "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"},
		{widgetsPath + "/a2", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"},
		{widgetsPath + "?watch=1&resourceVersion=1&timeoutSeconds=1", "application/json"},
	}
	for _, rd := range reads {
		var got [2][]byte
		for i, ts := range servers {
			r := send(t, ts.URL+rd.path, "GET", map[string]string{"Accept": rd.accept}, nil)
			if r.code != http.StatusOK {
				t.Fatalf("GET %s (%s) on server %d: %d %s", rd.path, rd.accept, i, r.code, r.body)
			}
			got[i] = blankVarying(r.body)
		}
		if !sameAnswers(got[0], got[1]) {
			t.Errorf("GET %s (%s) answers differ:\nshared %s\n whole %s", rd.path, rd.accept, got[0], got[1])
		}
		if rd.accept == "application/json" && !bytes.Contains(got[0], []byte(`"managedFields":[`)) {
			t.Errorf("GET %s has no managedFields: %s", rd.path, got[0])
		}
	}

	// A twin whose managedFields are its first's is kept apart; c and its
	// twin are stored whole.
	ctx := context.Background()
	kv := func(name string) *storage.KeyValue {
		resp, err := shared.Get(ctx, "/stable.example.com/widgets/default/"+name, storage.GetOptions{})
		if err != nil || resp.KV == nil {
			t.Fatalf("get %s: %v", name, err)
		}
		return resp.KV
	}
	for _, name := range []string{"a", "d"} {
		if managedFieldsOf(t, servers[0], name) != managedFieldsOf(t, servers[0], name+"2") {
			continue // the twins were written in different seconds
		}
		if got := kv(name + "2"); got.Shared == (unique.Handle[string]{}) || bytes.Contains(got.Value, []byte(`"managedFields":[`)) {
			t.Errorf("%s2 holds the managedFields %s wrote before it, yet they are not kept apart: %s", name, name, got.Value)
		}
	}
	for _, name := range []string{"c", "c2"} {
		if got := kv(name); got.Shared != (unique.Handle[string]{}) {
			t.Errorf("%s has annotations that read as the placeholder, yet its managedFields are kept apart", name)
		}
	}
}

// managedFieldsOf returns the managedFields of a Widget as JSON.
func managedFieldsOf(t *testing.T, ts *httptest.Server, name string) string {
	t.Helper()
	r := do(t, ts, "GET", widgetsPath+"/"+name, "", "")
	var w widget
	if err := json.Unmarshal(r.body, &w); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(w.ManagedFields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSharedManagedFieldsAreKeptOnce: objects one client writes in the
// same second hold the same managedFields, kept once from the second
// object on; objects each written by a manager of its own keep theirs in
// their values.
func TestSharedManagedFieldsAreKeptOnce(t *testing.T) {
	st := memory.New(memory.Options{})
	ts := sharedFieldsServer(t, st, false)
	ctx := context.Background()
	part := func(name string) unique.Handle[string] {
		resp, err := st.Get(ctx, "/stable.example.com/widgets/default/"+name, storage.GetOptions{})
		if err != nil || resp.KV == nil {
			t.Fatalf("get %s: %v", name, err)
		}
		return resp.KV.Shared
	}
	for attempt := 0; ; attempt++ {
		second := time.Now().Unix()
		var parts []unique.Handle[string]
		for i := range 3 {
			name := fmt.Sprintf("x%d-%d", attempt, i)
			createWidget(t, ts, name, `{"color":"red"}`)
			parts = append(parts, part(name))
		}
		if time.Now().Unix() != second {
			if attempt == 5 {
				t.Fatal("no three creates in one second")
			}
			continue // the second changed between the creates
		}
		if parts[1] == (unique.Handle[string]{}) || parts[1] != parts[2] {
			t.Fatalf("managedFields of creates in one second are not one shared part: %v %v", parts[1], parts[2])
		}
		break
	}
	for i := range 3 {
		name := fmt.Sprintf("y%d", i)
		r := do(t, ts, "POST", widgetsPath+"?fieldManager=manager-"+name, "application/json",
			`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"`+name+`"},"spec":{"color":"red"}}`)
		if r.code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", name, r.code, r.body)
		}
		if part(name) != (unique.Handle[string]{}) {
			t.Errorf("%s's managedFields, its own, are kept apart", name)
		}
	}
}
