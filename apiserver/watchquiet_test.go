package apiserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
)

// quietStall is the stall timeout of the tests below: a write may block
// this long; a watch may stay quiet as long as it likes.
const quietStall = 100 * time.Millisecond

// serveQuiet starts a server whose watches have a short stall timeout,
// over TLS with HTTP/2 when tls is set.
func serveQuiet(t *testing.T, tls bool) *httptest.Server {
	t.Helper()
	srv := apiserver.New(apiserver.Options{WatchCache: apiserver.WatchCacheOptions{StallTimeout: quietStall}})
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	if tls {
		ts.EnableHTTP2 = true
		ts.StartTLS()
	} else {
		ts.Start()
	}
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	return ts
}

// TestWatchQuietOverHTTP2: a watch over TLS (HTTP/2) that has sent an
// event and then has nothing to send for several stall timeouts stays
// open and delivers the next event. The write deadline of the first
// event used to stay set on the stream, and HTTP/2 resets a stream when
// its deadline passes even with no write under way: with the default
// stall timeout, such watches were cut after 10 s of quiet.
func TestWatchQuietOverHTTP2(t *testing.T) {
	ts := serveQuiet(t, true)
	req, err := http.NewRequest("GET", ts.URL+widgetsPath+"?watch=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("watch over %s, want HTTP/2", resp.Proto)
	}
	events := bufio.NewScanner(resp.Body)
	for _, name := range []string{"a", "b"} {
		create := `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"}}`
		r, err := ts.Client().Post(ts.URL+widgetsPath, "application/json", strings.NewReader(create))
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusCreated {
			t.Fatalf("create %s: %d", name, r.StatusCode)
		}
		if !events.Scan() {
			t.Fatalf("no event for %s: %v", name, events.Err())
		}
		var e watchEvent
		if err := json.Unmarshal(events.Bytes(), &e); err != nil || e.Type != "ADDED" || e.Object.Metadata.Name != name {
			t.Fatalf("event %s (%v), want ADDED %s", events.Bytes(), err, name)
		}
		time.Sleep(4 * quietStall) // quiet, well past the stall timeout
	}
}

// TestWatchQuietEndsCleanly: a watch over HTTP/1.1 that stays quiet past
// the stall timeout before its timeoutSeconds ends with the chunked
// body's last chunk, not a cut connection: the write deadline of its last
// event has passed by then, and the last chunk used to be written under
// it, and fail.
func TestWatchQuietEndsCleanly(t *testing.T) {
	ts := serveQuiet(t, false)
	resp, err := http.Get(ts.URL + widgetsPath + "?watch=1&timeoutSeconds=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	createWidget(t, ts, "a", "")
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("watch body after %q: %v", body, err)
	}
	var e watchEvent
	if err := json.Unmarshal(body, &e); err != nil || e.Type != "ADDED" || e.Object.Metadata.Name != "a" {
		t.Fatalf("watch body %q (%v), want ADDED a", body, err)
	}
}
