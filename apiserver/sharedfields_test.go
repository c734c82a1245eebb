package apiserver_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
	"unique"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// wholeStore is a memory store that does not keep shared parts, so that
// a server on it stores every value whole.
type wholeStore struct{ storage.Interface }

// sharedFieldsServer is a server of the widget kind on st.
func sharedFieldsServer(t *testing.T, st storage.Interface) *httptest.Server {
	t.Helper()
	srv := apiserver.New(apiserver.Options{Storage: st})
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
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

// TestSharedManagedFieldsServeAsWhole: a server whose store keeps the
// managedFields of its values apart answers every read (objects, lists,
// Tables, partial objects, watch events, JSON and CBOR) byte for byte as
// one that stores values whole, through creates, status and spec updates,
// patches, applies, no-op updates and deletions held by finalizers, and
// for an object whose annotations read as the placeholder.
func TestSharedManagedFieldsServeAsWhole(t *testing.T) {
	shared, whole := memory.New(memory.Options{}), &wholeStore{memory.New(memory.Options{})}
	servers := []*httptest.Server{sharedFieldsServer(t, shared), sharedFieldsServer(t, whole)}
	const obj = `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"%s","labels":{"app":"w"},` +
		`"annotations":{"note":"a \"quoted\" <value>"%s}%s},"spec":{"replicas":2,"color":"red","ports":[{"name":"http","port":80}]}}`
	body := func(name, annotation, extra string) string {
		return fmt.Sprintf(obj, name, annotation, extra)
	}
	type step struct {
		method, path, contentType, body string
		code                            int
	}
	steps := []step{
		{"POST", widgetsPath, "application/json", body("a", "", ""), 201},
		{"POST", widgetsPath, "application/json", body("b", "", ""), 201},
		// An annotation that encodes as the placeholder: stored whole.
		{"POST", widgetsPath, "application/json", body("c", `,"managedFields":"\u0001"`, ""), 201},
		{"POST", widgetsPath, "application/json", body("d", "", `,"finalizers":["example.com/hold"]`), 201},
		{"PUT", widgetsPath + "/a/status", "application/json",
			strings.Replace(body("a", "", ""), `"spec"`, `"status":{"readyReplicas":2},"spec"`, 1), 200},
		{"PATCH", widgetsPath + "/a", "application/merge-patch+json", `{"spec":{"color":"blue"}}`, 200},
		{"PATCH", widgetsPath + "/b?fieldManager=applier&force=true", "application/apply-patch+yaml",
			"apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: b\nspec:\n  color: green\n", 200},
		{"PATCH", widgetsPath + "/b?fieldManager=applier", "application/apply-patch+yaml",
			"apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: b\nspec:\n  color: green\n", 200},
		{"PATCH", widgetsPath + "/c", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`, 200},
		{"DELETE", widgetsPath + "/d", "", "", 200},
		{"DELETE", widgetsPath + "/b", "", "", 200},
	}
	for _, s := range steps {
		var got [2][]byte
		for i, ts := range servers {
			r := do(t, ts, s.method, s.path, s.contentType, s.body)
			if r.code != s.code {
				t.Fatalf("%s %s on server %d: %d %s", s.method, s.path, i, r.code, r.body)
			}
			got[i] = blankVarying(r.body)
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("%s %s answers differ:\nshared %s\n whole %s", s.method, s.path, got[0], got[1])
		}
	}
	// A no-op update keeps the resourceVersion on both.
	a := do(t, servers[0], "GET", widgetsPath+"/a", "", "")
	if r := do(t, servers[0], "PUT", widgetsPath+"/a", "application/json", string(a.body)); !bytes.Equal(r.body, a.body) {
		t.Errorf("no-op update changed the object:\nbefore %s\n after %s", a.body, r.body)
	}

	reads := []struct{ path, accept string }{
		{widgetsPath + "/a", "application/json"},
		{widgetsPath + "/c", "application/json"},
		{widgetsPath + "/d", "application/json"},
		{widgetsPath + "/a", "application/cbor"},
		{widgetsPath, "application/json"},
		{widgetsPath + "?labelSelector=app%3Dw&limit=1", "application/json"},
		{widgetsPath + "?fieldSelector=spec.color%3Dblue", "application/json"},
		{widgetsPath, "application/cbor"},
		{widgetsPath, "application/json;as=Table;v=v1;g=meta.k8s.io"},
		{widgetsPath + "?includeObject=Object", "application/json;as=Table;v=v1;g=meta.k8s.io"},
		{widgetsPath, "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"},
		{widgetsPath + "/a", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"},
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
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("GET %s (%s) answers differ:\nshared %s\n whole %s", rd.path, rd.accept, got[0], got[1])
		}
		if rd.accept == "application/json" && !bytes.Contains(got[0], []byte(`"managedFields":[`)) {
			t.Errorf("GET %s has no managedFields: %s", rd.path, got[0])
		}
	}

	// The shared server kept a's managedFields apart, and c's whole.
	ctx := context.Background()
	for name, apart := range map[string]bool{"a": true, "c": false, "d": true} {
		resp, err := shared.Get(ctx, "/stable.example.com/widgets/default/"+name, storage.GetOptions{})
		if err != nil || resp.KV == nil {
			t.Fatalf("get %s: %v", name, err)
		}
		kept := resp.KV.Shared != unique.Handle[string]{}
		if kept != apart || bytes.Contains(resp.KV.Value, []byte(`"managedFields":[`)) == apart {
			t.Errorf("%s: shared part kept %v, want %v; value %s", name, kept, apart, resp.KV.Value)
		}
	}
}

// TestSharedManagedFieldsAreKeptOnce: objects one client writes in the
// same second hold the same managedFields, kept once.
func TestSharedManagedFieldsAreKeptOnce(t *testing.T) {
	st := memory.New(memory.Options{})
	ts := sharedFieldsServer(t, st)
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		second := time.Now().Unix()
		names := []string{"x" + string(rune('a'+attempt)), "y" + string(rune('a'+attempt))}
		var parts []unique.Handle[string]
		for _, name := range names {
			createWidget(t, ts, name, `{"color":"red"}`)
			resp, err := st.Get(ctx, "/stable.example.com/widgets/default/"+name, storage.GetOptions{})
			if err != nil || resp.KV == nil {
				t.Fatalf("get %s: %v", name, err)
			}
			parts = append(parts, resp.KV.Shared)
		}
		if time.Now().Unix() != second {
			if attempt == 5 {
				t.Fatal("no two creates in one second")
			}
			continue // the second changed between the creates
		}
		if parts[0] == (unique.Handle[string]{}) || parts[0] != parts[1] {
			t.Fatalf("managedFields of two creates in one second are not one shared part: %v %v", parts[0], parts[1])
		}
		return
	}
}
