package apiserver_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
)

// countingWriter keeps a response's headers and counts its body's bytes
// (keeping them only when asked), so that reading a response allocates
// nothing for the body.
type countingWriter struct {
	h    http.Header
	code int
	n    int
	body []byte // the first response's body
	keep bool
}

func (w *countingWriter) Header() http.Header  { return w.h }
func (w *countingWriter) WriteHeader(code int) { w.code = code }
func (w *countingWriter) Write(b []byte) (int, error) {
	w.n += len(b)
	if w.keep {
		w.body = append(w.body, b...)
	}
	return len(b), nil
}

// TestGetWritesStoredBytes: a GET answers with the stored bytes
// themselves (resourceVersion spliced in as they are written), not with a
// copy of the object made per request: it allocates far less than the
// object's size, and the body is what it was.
func TestGetWritesStoredBytes(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	const size = 256 << 10
	big := strings.Repeat("x", size)
	body := `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"big","annotations":{"a":"` + big + `"}},"spec":{"replicas":1}}`
	if r := do(t, ts, "POST", widgetsPath, "application/json", body); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	want := do(t, ts, "GET", widgetsPath+"/big", "", "")
	req := httptest.NewRequest("GET", widgetsPath+"/big", nil)
	w := &countingWriter{h: http.Header{}, keep: true}
	srv.ServeHTTP(w, req)
	if w.code != http.StatusOK || string(w.body) != string(want.body) || w.h.Get("Content-Length") != strconv.Itoa(len(want.body)) {
		t.Fatalf("GET: %d, %d bytes (Content-Length %s), want %d bytes as over HTTP", w.code, len(w.body), w.h.Get("Content-Length"), len(want.body))
	}
	const gets = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range gets {
		w := &countingWriter{h: http.Header{}}
		srv.ServeHTTP(w, req)
		if w.code != http.StatusOK || w.n != len(want.body) {
			t.Fatalf("GET: %d, %d bytes", w.code, w.n)
		}
	}
	runtime.ReadMemStats(&after)
	if perGet := (after.TotalAlloc - before.TotalAlloc) / gets; perGet > size/8 {
		t.Errorf("a GET of a %d-byte object allocates %d bytes", len(want.body), perGet)
	}
}
