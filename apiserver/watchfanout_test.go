package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
)

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

// watchLines opens a watch with the given Accept header and returns its
// lines as they arrive.
func watchLines(t *testing.T, ts *httptest.Server, query, accept string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+widgetsPath+"?watch=1&"+query, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		t.Fatalf("watch: %d", resp.StatusCode)
	}
	lines := make(chan string, 1000)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

func nextLine(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("watch closed")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10s")
	}
	return ""
}

// TestWatchEncodesOncePerRendering: N updates watched by five JSON and
// two Table streams are encoded once for the Table rendering, shared by
// the Table streams, but for each Table stream's first event, which
// alone carries the column definitions and is made for it; the JSON
// streams frame the stored bytes, which keeps no copy of the object per
// change, and carry the same bytes.
func TestWatchEncodesOncePerRendering(t *testing.T) {
	const updates = 10
	srv := apiserver.New(apiserver.Options{})
	ctr := srv.WatchCounters()
	srv.Register(widgetKind())
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	a := createWidget(t, ts, "a", `{"color":"red"}`)
	from := "resourceVersion=" + a.ResourceVersion
	var jsonStreams, tableStreams []<-chan string
	for range 5 {
		jsonStreams = append(jsonStreams, watchLines(t, ts, from, ""))
	}
	for range 2 {
		tableStreams = append(tableStreams, watchLines(t, ts, from, tableAccept))
	}
	var revs []string
	for i := range updates {
		r := do(t, ts, "PATCH", widgetsPath+"/a", "application/merge-patch+json", fmt.Sprintf(`{"spec":{"replicas":%d}}`, i+2))
		if r.code != 200 {
			t.Fatalf("patch: %d %s", r.code, r.body)
		}
		revs = append(revs, decodeWidget(t, r).ResourceVersion)
	}
	for i, rv := range revs {
		first := ""
		for j, lines := range jsonStreams {
			l := nextLine(t, lines)
			var e watchEvent
			if err := json.Unmarshal([]byte(l), &e); err != nil || e.Type != "MODIFIED" || e.Object.Metadata.ResourceVersion != rv {
				t.Fatalf("JSON stream %d, event %d: %s (%v), want MODIFIED at %s", j, i, l, err, rv)
			}
			if j == 0 {
				first = l
			} else if l != first {
				t.Fatalf("JSON streams differ at event %d:\n%s\n%s", i, first, l)
			}
		}
		for j, lines := range tableStreams {
			l := nextLine(t, lines)
			var e struct {
				Type   string
				Object struct {
					Kind     string
					Metadata struct{ ResourceVersion string }
					Rows     []struct{ Cells []any }
				}
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil || e.Type != "MODIFIED" || e.Object.Kind != "Table" ||
				e.Object.Metadata.ResourceVersion != rv || len(e.Object.Rows) != 1 || e.Object.Rows[0].Cells[0] != "a" {
				t.Fatalf("Table stream %d, event %d: %s (%v)", j, i, l, err)
			}
		}
	}
	if got, want := ctr.Encodings(), int64(updates-1); got != want {
		t.Fatalf("%d shared encodings for %d updates × 7 streams, 2 of them Tables, want %d", got, updates, want)
	}
}

// smallBuffers makes the server's sockets buffer little, so that a peer
// that stops reading blocks the server's writes soon.
// It reports the remote address of each connection the server closes, on
// closed: a watch stream's connection is taken from net/http, which then
// no longer reports its closing.
type smallBuffers struct {
	net.Listener
	closed chan string
}

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(8 << 10)
	}
	if err != nil {
		return c, err
	}
	return &reportedConn{Conn: c, closed: l.closed}, nil
}

// reportedConn reports its first Close.
type reportedConn struct {
	net.Conn
	once   sync.Once
	closed chan string
}

func (c *reportedConn) Close() error {
	c.once.Do(func() { c.closed <- c.RemoteAddr().String() })
	return c.Conn.Close()
}

// TestWatchPeerStopsReading: a client that stops reading its watch is cut
// off once its writes have been blocked for the stall timeout, while
// another watcher of the same events gets every one of them in order.
func TestWatchPeerStopsReading(t *testing.T) {
	const updates, stall = 60, 300 * time.Millisecond
	srv := apiserver.New(apiserver.Options{WatchCache: apiserver.WatchCacheOptions{WatcherBuffer: 2, StallTimeout: stall}})
	ctr := srv.WatchCounters()
	srv.Register(widgetKind())
	ts := httptest.NewUnstartedServer(srv)
	closedConns := make(chan string, 100)
	ts.Listener = smallBuffers{Listener: ts.Listener, closed: closedConns}
	ts.Start()
	t.Cleanup(ts.Close)
	a := createWidget(t, ts, "a", "")
	from := "resourceVersion=" + a.ResourceVersion

	stalled, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	// The stalled client keeps the system's receive buffer: one shrunk
	// below the size of a loopback segment drops data it advertised room
	// for, and the server's kernel then resends only on its backed-off
	// retransmission timer (seconds after a long stall), never on a
	// window update when the client reads again.
	fmt.Fprintf(stalled, "GET %s?watch=1&%s HTTP/1.1\r\nHost: kapi\r\n\r\n", widgetsPath, from)
	fast := watchLines(t, ts, from, "")

	big := strings.Repeat("x", 32<<10)
	var revs []string
	for i := range updates {
		r := do(t, ts, "PATCH", widgetsPath+"/a", "application/merge-patch+json",
			fmt.Sprintf(`{"metadata":{"annotations":{"big":"%d%s"}}}`, i, big))
		if r.code != 200 {
			t.Fatalf("patch: %d %s", r.code, r.body)
		}
		revs = append(revs, decodeWidget(t, r).ResourceVersion)
	}
	for i, rv := range revs {
		var e watchEvent
		if l := nextLine(t, fast); json.Unmarshal([]byte(l), &e) != nil || e.Type != "MODIFIED" || e.Object.Metadata.ResourceVersion != rv {
			t.Fatalf("event %d: %.200s, want MODIFIED at %s", i, l, rv)
		}
	}

	// The server gives up on the stalled connection by itself, while its
	// client still reads nothing.
	timeout := time.After(10 * time.Second)
	for closed := ""; closed != stalled.LocalAddr().String(); {
		select {
		case closed = <-closedConns:
		case <-timeout:
			t.Fatal("the server still holds the stalled connection")
		}
	}
	if ctr.SlowWatchers() != 1 {
		t.Errorf("%d watchers counted as too slow, want the stalled one", ctr.SlowWatchers())
	}
	// The stalled client then reads what the buffers held, in order, and
	// the end of the connection.
	_ = stalled.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(stalled), nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	n, truncated := 0, false
	for sc.Scan() {
		if truncated {
			t.Fatalf("an event after a broken frame: %.200s", sc.Text())
		}
		var e watchEvent
		if truncated = json.Unmarshal(sc.Bytes(), &e) != nil; truncated {
			continue // the frame the cut went through; must be the last
		}
		if e.Object.Metadata.ResourceVersion != revs[n] {
			t.Fatalf("stalled client's event %d at %s, want resourceVersion %s", n, e.Object.Metadata.ResourceVersion, revs[n])
		}
		n++
	}
	if err := sc.Err(); errors.Is(err, os.ErrDeadlineExceeded) || truncated && err == nil {
		t.Fatalf("after %d events: %v (truncated frame: %v)", n, err, truncated)
	}
	if n >= updates {
		t.Fatalf("the stalled client got all %d events: it never stalled the server", n)
	}
	t.Logf("the stalled client got %d of %d events before the server cut it off (%v)", n, updates, sc.Err())
}

// blockedWriter is a response writer whose writes wait for release: a
// peer that takes nothing for a while, on a connection without write
// deadlines.
type blockedWriter struct {
	header  http.Header
	release chan struct{}
	body    strings.Builder
}

func (w *blockedWriter) Header() http.Header { return w.header }
func (w *blockedWriter) WriteHeader(int)     {}
func (w *blockedWriter) Flush()              {}
func (w *blockedWriter) Write(b []byte) (int, error) {
	<-w.release
	return w.body.Write(b)
}

// TestWatchTooSlowEndsCleanly: when the cache ends a watcher as too slow,
// the stream sends what the watcher had delivered and ends without an
// ERROR event, as kube-apiserver ends a watcher it cannot keep up with.
func TestWatchTooSlowEndsCleanly(t *testing.T) {
	srv := apiserver.New(apiserver.Options{WatchCache: apiserver.WatchCacheOptions{WatcherBuffer: 2, StallTimeout: 100 * time.Millisecond}})
	ctr := srv.WatchCounters()
	srv.Register(widgetKind())
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	a := createWidget(t, ts, "a", "")

	w := &blockedWriter{header: http.Header{}, release: make(chan struct{})}
	req := httptest.NewRequest("GET", widgetsPath+"?watch=1&resourceVersion="+a.ResourceVersion, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.ServeHTTP(w, req)
	}()
	var revs []string
	for i := range 10 {
		r := do(t, ts, "PATCH", widgetsPath+"/a", "application/merge-patch+json", fmt.Sprintf(`{"spec":{"replicas":%d}}`, i+2))
		revs = append(revs, decodeWidget(t, r).ResourceVersion)
	}
	for deadline := time.Now().Add(10 * time.Second); ctr.SlowWatchers() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watcher was not ended as too slow")
		}
	}
	close(w.release)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end")
	}
	lines := strings.Split(strings.TrimSuffix(w.body.String(), "\n"), "\n")
	if len(lines) == 0 || len(lines) >= len(revs) {
		t.Fatalf("%d events sent of %d", len(lines), len(revs))
	}
	for i, l := range lines {
		var e watchEvent
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Type != "MODIFIED" || e.Object.Metadata.ResourceVersion != revs[i] {
			t.Fatalf("event %d: %.200s (%v), want MODIFIED at %s", i, l, err, revs[i])
		}
	}
}

// flushCounter is a response writer that counts flushes.
type flushCounter struct {
	header  http.Header
	mu      sync.Mutex
	body    strings.Builder
	flushes int
}

func (w *flushCounter) Header() http.Header { return w.header }
func (w *flushCounter) WriteHeader(int)     {}
func (w *flushCounter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.Write(b)
}
func (w *flushCounter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushes++
}

func (w *flushCounter) events() (int, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Count(w.body.String(), "\n"), w.flushes
}

// TestWatchBatchesBursts: a burst of events goes out in fewer flushes
// than events, and the last event of the burst is not held back.
func TestWatchBatchesBursts(t *testing.T) {
	const burst = 40
	srv := apiserver.New(apiserver.Options{})
	srv.Register(widgetKind())
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	a := createWidget(t, ts, "a", "")
	w := &flushCounter{header: http.Header{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.ServeHTTP(w, httptest.NewRequestWithContext(ctx, "GET", widgetsPath+"?watch=1&resourceVersion="+a.ResourceVersion, nil))
	}()
	defer func() {
		cancel()
		<-done
	}()
	for i := range burst {
		do(t, ts, "PATCH", widgetsPath+"/a", "application/merge-patch+json", fmt.Sprintf(`{"spec":{"replicas":%d}}`, i+2))
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		n, flushes := w.events()
		if n == burst {
			if flushes-1 >= burst { // one flush sends the headers
				t.Fatalf("%d events in %d flushes", n, flushes-1)
			}
			t.Logf("%d events in %d flushes", n, flushes-1)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events sent", n, burst)
		}
	}
}

// gateWriter is a response writer whose writes after the first wait for
// open, and which counts them.
type gateWriter struct {
	header http.Header
	open   chan struct{}
	mu     sync.Mutex
	body   strings.Builder
	writes int
}

func (w *gateWriter) Header() http.Header { return w.header }
func (w *gateWriter) WriteHeader(int)     {}
func (w *gateWriter) Flush()              {}
func (w *gateWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	first := w.writes == 0
	w.writes++
	w.mu.Unlock()
	if !first {
		<-w.open
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.Write(b)
}

func (w *gateWriter) counts() (events, writes int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Count(w.body.String(), "\n"), w.writes
}

// TestWatchCatchesUpInLargeWrites: a stream whose peer took nothing for a
// while sends the events that gathered meanwhile in writes of up to
// 128 KiB, not one per few events.
func TestWatchCatchesUpInLargeWrites(t *testing.T) {
	const updates = 60 // of about 3.5 KB each: 210 KB
	srv := apiserver.New(apiserver.Options{WatchCache: apiserver.WatchCacheOptions{WatcherBuffer: 2 * updates}})
	srv.Register(widgetKind())
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	a := createWidget(t, ts, "a", "")
	w := &gateWriter{header: http.Header{}, open: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.ServeHTTP(w, httptest.NewRequestWithContext(ctx, "GET", widgetsPath+"?watch=1&resourceVersion="+a.ResourceVersion, nil))
	}()
	defer func() {
		cancel()
		<-done
	}()
	big := strings.Repeat("x", 3<<10)
	for i := range updates {
		do(t, ts, "PATCH", widgetsPath+"/a", "application/merge-patch+json", fmt.Sprintf(`{"metadata":{"annotations":{"big":"%d%s"}}}`, i, big))
	}
	time.Sleep(200 * time.Millisecond) // the watcher hands the stream what its channel holds
	close(w.open)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		n, writes := w.counts()
		if n == updates {
			// One for the first event, one that waited at the gate, then
			// the ~200 KB that gathered meanwhile.
			if writes > 5 {
				t.Fatalf("%d events in %d writes, want 5 at most", n, writes)
			}
			t.Logf("%d events in %d writes", n, writes)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events sent", n, updates)
		}
	}
}

// TestWatchTableHeaders: a Table watch sends the column definitions with
// its first event only, later ones carrying null, as kube-apiserver's
// do; a stream that starts later gets them with its own first event,
// though other streams sent that event without.
func TestWatchTableHeaders(t *testing.T) {
	ts := newTestServer(t)
	a := createWidget(t, ts, "a", `{"color":"red"}`)
	early := watchLines(t, ts, "resourceVersion="+a.ResourceVersion, tableAccept)
	var revs []string
	for i := range 3 {
		r := do(t, ts, "PATCH", widgetsPath+"/a", "application/merge-patch+json", fmt.Sprintf(`{"spec":{"replicas":%d}}`, i+2))
		if r.code != 200 {
			t.Fatalf("patch: %d %s", r.code, r.body)
		}
		revs = append(revs, decodeWidget(t, r).ResourceVersion)
	}
	late := watchLines(t, ts, "resourceVersion="+revs[0], tableAccept)
	headers := func(l string) bool {
		var e struct {
			Object struct {
				ColumnDefinitions *[]json.RawMessage `json:"columnDefinitions"`
			}
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if !strings.Contains(l, `"columnDefinitions":`) {
			t.Errorf("event without a columnDefinitions field: %s", l)
		}
		return e.Object.ColumnDefinitions != nil && len(*e.Object.ColumnDefinitions) > 0
	}
	var got []bool
	for range revs {
		got = append(got, headers(nextLine(t, early)))
	}
	for range revs[1:] {
		got = append(got, headers(nextLine(t, late)))
	}
	if want := []bool{true, false, false, true, false}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events with column definitions: early stream then late one %v, want %v", got, want)
	}
}
