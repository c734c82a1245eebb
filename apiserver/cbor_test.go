package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	fxcbor "github.com/fxamacker/cbor/v2"
	kjson "sigs.k8s.io/json"

	"github.com/kapi-dev/kapi/codec/cbor"
)

// doWith sends a request with the given headers and a binary body.
func doWith(t testing.TB, ts *httptest.Server, method, path string, header map[string]string, body []byte) response {
	t.Helper()
	return send(t, ts.URL+path, method, header, body)
}

// cborOf encodes a JSON document as CBOR, as a CBOR client would send it.
func cborOf(t testing.TB, doc string) []byte {
	t.Helper()
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := (cbor.Serializer{}).Encode(&buf, v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// jsonOfCBOR checks that a response is self-described CBOR and returns it
// as a generic JSON value.
func jsonOfCBOR(t testing.TB, r response) map[string]any {
	t.Helper()
	if !bytes.HasPrefix(r.body, []byte{0xd9, 0xd9, 0xf7}) {
		t.Fatalf("not self-described CBOR (%d %s): %q", r.code, r.header.Get("Content-Type"), r.body)
	}
	j, err := cbor.ToJSON(r.body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

var cborIO = map[string]string{"Content-Type": "application/cbor", "Accept": "application/cbor"}

func TestCBORCreateGetListUpdateDelete(t *testing.T) {
	ts := newTestServer(t)
	r := doWith(t, ts, "POST", widgetsPath, cborIO,
		cborOf(t, `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"c"},"spec":{"color":"red","replicas":2}}`))
	if r.code != http.StatusCreated || r.header.Get("Content-Type") != "application/cbor" {
		t.Fatalf("create: %d %s %q", r.code, r.header.Get("Content-Type"), r.body)
	}
	created := jsonOfCBOR(t, r)
	md := created["metadata"].(map[string]any)
	if created["spec"].(map[string]any)["color"] != "red" || md["resourceVersion"] == "" || md["uid"] == "" {
		t.Fatalf("created: %v", created)
	}

	got := jsonOfCBOR(t, doWith(t, ts, "GET", widgetsPath+"/c", cborIO, nil))
	if got["metadata"].(map[string]any)["resourceVersion"] != md["resourceVersion"] {
		t.Errorf("get: %v", got)
	}
	list := jsonOfCBOR(t, doWith(t, ts, "GET", widgetsPath, cborIO, nil))
	if list["kind"] != "WidgetList" || len(list["items"].([]any)) != 1 {
		t.Errorf("list: %v", list)
	}

	got["spec"].(map[string]any)["color"] = "blue"
	body, _ := json.Marshal(got)
	r = doWith(t, ts, "PUT", widgetsPath+"/c", cborIO, cborOf(t, string(body)))
	if r.code != http.StatusOK || jsonOfCBOR(t, r)["spec"].(map[string]any)["color"] != "blue" {
		t.Errorf("update: %d %v", r.code, jsonOfCBOR(t, r))
	}
	r = doWith(t, ts, "DELETE", widgetsPath+"/c", cborIO, nil)
	if r.code != http.StatusOK {
		t.Errorf("delete: %d", r.code)
	}
	r = doWith(t, ts, "GET", widgetsPath+"/c", cborIO, nil)
	if st := jsonOfCBOR(t, r); r.code != http.StatusNotFound || st["kind"] != "Status" || st["reason"] != "NotFound" {
		t.Errorf("get after delete: %d %v", r.code, st)
	}
}

func TestCBORBadBodies(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name, query string
		body        []byte
		code        int
		message     string
	}{
		{"duplicate keys", "", []byte("\xd9\xd9\xf7\xa2\x44kind\x46Widget\x44kind\x46Widget"), 400,
			`Widget in version "v1" cannot be handled as a Widget: cbor: found duplicate map key`},
		{"not CBOR", "", []byte("{}"), 400, `Widget in version "v1" cannot be handled as a Widget: unexpected EOF`},
		{"unknown field under Strict", "?fieldValidation=Strict",
			cborOf(t, `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"u"},"spec":{"foo":1}}`), 400,
			`Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.foo"`},
		{"float for an integer", "",
			cborOf(t, `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"f"},"spec":{"replicas":1.5}}`), 400,
			`Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal number 1.5`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := doWith(t, ts, "POST", widgetsPath+tc.query, cborIO, tc.body)
			st := jsonOfCBOR(t, r)
			if r.code != tc.code || st["code"] != float64(tc.code) || !strings.HasPrefix(st["message"].(string), tc.message) {
				t.Errorf("%d %v", r.code, st)
			}
		})
	}
	t.Run("unknown field warns by default", func(t *testing.T) {
		r := doWith(t, ts, "POST", widgetsPath, cborIO,
			cborOf(t, `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"foo":1}}`))
		if r.code != http.StatusCreated || r.header.Get("Warning") != `299 - "unknown field \"spec.foo\""` {
			t.Errorf("%d %q", r.code, r.header.Get("Warning"))
		}
	})
}

// A kind served as meta.Unstructured keeps floats and integers apart
// through a CBOR create, get and list.
func TestCBORUnstructuredKind(t *testing.T) {
	ts := startWith(t, widgetKind(), thingKind())
	r := doWith(t, ts.Server, "POST", thingsPath, cborIO,
		cborOf(t, `{"apiVersion":"stable.example.com/v1","kind":"Thing","metadata":{"name":"t"},"spec":{"n":3,"x":2.5}}`))
	if r.code != http.StatusCreated {
		t.Fatalf("%d %v", r.code, jsonOfCBOR(t, r))
	}
	// 3 is an unsigned integer (0x03), 2.5 a half-precision float.
	if !bytes.Contains(r.body, []byte("\x41n\x03")) || !bytes.Contains(r.body, []byte("\x41x\xf9\x41\x00")) {
		t.Errorf("numbers: % x", r.body)
	}
	list := jsonOfCBOR(t, doWith(t, ts.Server, "GET", thingsPath, cborIO, nil))
	items := list["items"].([]any)
	if list["kind"] != "ThingList" || len(items) != 1 || items[0].(map[string]any)["spec"].(map[string]any)["x"] != 2.5 {
		t.Errorf("list: %v", list)
	}
	r = doWith(t, ts.Server, "PATCH", thingsPath+"/t?fieldManager=m", map[string]string{"Content-Type": "application/apply-patch+cbor"},
		cborOf(t, `{"apiVersion":"stable.example.com/v1","kind":"Thing","metadata":{"name":"t"},"spec":{"y":true}}`))
	if r.code != http.StatusOK || !strings.Contains(string(r.body), `"spec":{"n":3,"x":2.5,"y":true}`) {
		t.Errorf("apply: %d %s", r.code, r.body)
	}
}

func TestCBORApply(t *testing.T) {
	ts := newTestServer(t)
	apply := map[string]string{"Content-Type": "application/apply-patch+cbor", "Accept": "application/cbor"}
	cfg := cborOf(t, `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"color":"green"}}`)
	r := doWith(t, ts, "PATCH", widgetsPath+"/a?fieldManager=m", apply, cfg)
	obj := jsonOfCBOR(t, r)
	if r.code != http.StatusCreated || obj["spec"].(map[string]any)["color"] != "green" {
		t.Fatalf("apply: %d %v", r.code, obj)
	}
	mf := obj["metadata"].(map[string]any)["managedFields"].([]any)[0].(map[string]any)
	if mf["manager"] != "m" || mf["operation"] != "Apply" {
		t.Errorf("managedFields: %v", mf)
	}
	// The dynamic client sends apply configurations without the
	// self-described tag.
	r = doWith(t, ts, "PATCH", widgetsPath+"/a?fieldManager=m", apply, cfg[3:])
	if r.code != http.StatusOK {
		t.Errorf("untagged apply: %d %v", r.code, jsonOfCBOR(t, r))
	}
	for name, tc := range map[string]struct {
		path    string
		body    []byte
		code    int
		message string
	}{
		"malformed":          {"/a?fieldManager=m", []byte{0xa1, 0x41}, 400, "error decoding patch: "},
		"duplicate keys":     {"/a?fieldManager=m", []byte("\xa2\x41a\x01\x41a\x02"), 400, "error decoding patch: cbor: found duplicate map key"},
		"no field manager":   {"/a", cfg, 422, "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value"},
		"force is for apply": {"/a?fieldManager=m&force=true", cfg, 200, ""},
	} {
		r := doWith(t, ts, "PATCH", widgetsPath+tc.path, apply, tc.body)
		m := jsonOfCBOR(t, r)
		if r.code != tc.code || (tc.message != "" && !strings.HasPrefix(m["message"].(string), tc.message)) {
			t.Errorf("%s: %d %v", name, r.code, m)
		}
	}
}

func TestCBORWatch(t *testing.T) {
	ts := newTestServer(t)
	createWidget(t, ts, "a", `{"color":"red"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+widgetsPath+"?watch=1", nil)
	req.Header.Set("Accept", "application/json;q=0.9,application/cbor;q=1")
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "application/cbor-seq" || resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("watch: %d %q %q", resp.StatusCode, ct, resp.Header.Get("Content-Encoding"))
	}
	events := make(chan map[string]any)
	go func() {
		defer close(events)
		dec := fxcbor.NewDecoder(resp.Body)
		for {
			var item fxcbor.RawMessage
			if err := dec.Decode(&item); err != nil {
				return
			}
			j, err := cbor.ToJSON(item)
			if err != nil {
				return
			}
			var m map[string]any
			_ = json.Unmarshal(j, &m)
			events <- m
		}
	}()
	next := func() map[string]any {
		select {
		case e := <-events:
			return e
		case <-time.After(5 * time.Second):
			t.Fatal("no event")
			return nil
		}
	}
	if e := next(); e["type"] != "ADDED" || e["object"].(map[string]any)["metadata"].(map[string]any)["name"] != "a" {
		t.Fatalf("first event: %v", e)
	}
	doWith(t, ts, "DELETE", widgetsPath+"/a", nil, nil)
	if e := next(); e["type"] != "DELETED" {
		t.Fatalf("second event: %v", e)
	}
}
