package apiserver_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
)

// openWatches counts the long-running requests in progress.
type openWatches struct {
	*ends
	n atomic.Int64
}

func (o *openWatches) ObserveLongRunning(_ *apiserver.RequestLabels, delta int) {
	o.n.Add(int64(delta))
}

// TestWatchConnection: an HTTP/1.1 watch, written on its connection in
// chunks, reads as a chunked response whose events come in order and whose
// body ends properly when the watch times out; a client that closes its
// connection ends the watch on the server, although net/http no longer
// reads that connection.
func TestWatchConnection(t *testing.T) {
	obs := &openWatches{ends: newEnds()}
	_, ts := startOps(t, apiserver.Options{Observer: obs})
	a := createWidget(t, ts, "a", "")
	addr := ts.Listener.Addr().String()

	t.Run("events, then the end of the body", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET %s?watch=1&resourceVersion=%s&timeoutSeconds=1 HTTP/1.1\r\nHost: kapi\r\n\r\n", widgetsPath, a.ResourceVersion)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
			t.Fatalf("status %d, transfer encoding %v", resp.StatusCode, resp.TransferEncoding)
		}
		var want []string
		for i := range 3 {
			r := do(t, ts, "PATCH", widgetsPath+"/a", "application/merge-patch+json", fmt.Sprintf(`{"spec":{"replicas":%d}}`, i+2))
			if r.code != http.StatusOK {
				t.Fatalf("patch: %d %s", r.code, r.body)
			}
			want = append(want, decodeWidget(t, r).ResourceVersion)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		lines := bufio.NewScanner(resp.Body)
		var got []string
		for lines.Scan() {
			got = append(got, lines.Text())
		}
		if err := lines.Err(); err != nil {
			t.Fatalf("body ended with %v after %d events", err, len(got))
		}
		if len(got) != len(want) {
			t.Fatalf("%d events, want %d: %q", len(got), len(want), got)
		}
		for i, l := range got {
			if !strings.Contains(l, `"type":"MODIFIED"`) || !strings.Contains(l, `"resourceVersion":"`+want[i]+`"`) {
				t.Errorf("event %d: %.200s, want MODIFIED at %s", i, l, want[i])
			}
		}
	})

	t.Run("the client closes", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET %s?watch=1&resourceVersion=%s HTTP/1.1\r\nHost: kapi\r\n\r\n", widgetsPath, a.ResourceVersion)
		if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
			t.Fatal(err)
		}
		// The first watch's end is counted after its body has ended, so
		// it may still be counted for a moment.
		obs.waitOpen(t, 1, "the watch that timed out is still counted")
		c.Close()
		obs.waitOpen(t, 0, "the watch is still open on the server after its client closed the connection")
	})
}

// waitOpen waits up to 5 s for want long-running requests in progress.
func (o *openWatches) waitOpen(t *testing.T, want int64, why string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for o.n.Load() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d open, want %d", why, o.n.Load(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
