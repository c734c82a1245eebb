package apiserver_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
)

// keptAlive is a client's HTTP/1.1 connection, used as Go's Transport
// uses one: a response that does not say "Connection: close" and whose
// body has been read to its end puts the connection back for the next
// request.
type keptAlive struct {
	t    *testing.T
	addr string
	conn net.Conn
	br   *bufio.Reader
	// reusable: the last response left the connection open for another
	// request.
	reusable bool
}

func dialKeptAlive(t *testing.T, addr string) *keptAlive {
	t.Helper()
	k := &keptAlive{t: t, addr: addr}
	k.redial()
	t.Cleanup(func() { k.conn.Close() })
	return k
}

func (k *keptAlive) redial() {
	k.t.Helper()
	if k.conn != nil {
		k.conn.Close()
	}
	c, err := net.Dial("tcp", k.addr)
	if err != nil {
		k.t.Fatal(err)
	}
	k.conn, k.br = c, bufio.NewReader(c)
}

// send writes one request, on the same connection when the last response
// allowed it and on a new one otherwise, and reads the whole response.
// A connection the server closes after a response that kept it alive
// fails the test: a client that sent its next request on it would get
// "server closed idle connection".
func (k *keptAlive) send(method, path, contentType, body string) response {
	k.t.Helper()
	if !k.reusable {
		k.redial()
	}
	_ = k.conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(k.conn, "%s %s HTTP/1.1\r\nHost: kapi\r\nContent-Length: %d\r\n", method, path, len(body))
	if contentType != "" {
		fmt.Fprintf(k.conn, "Content-Type: %s\r\n", contentType)
	}
	fmt.Fprintf(k.conn, "\r\n%s", body)
	resp, err := http.ReadResponse(k.br, nil)
	if err != nil {
		k.t.Fatalf("%s %s on a connection the last response kept alive (%v): %v", method, path, k.reusable, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		k.t.Fatalf("%s %s: body: %v", method, path, err)
	}
	k.reusable = !resp.Close
	return response{code: resp.StatusCode, header: resp.Header, body: b, close: resp.Close}
}

// TestKeptAliveConnection: after a request that ends unusually (a watch
// that times out, a write whose store hangs past the request's deadline),
// the server either keeps the connection open for the next requests or
// says "Connection: close" in the response: it never closes a connection
// its response left kept alive. A watch over HTTP/1.1 writes on the
// connection itself and closes it at its end; its response used to say
// nothing of it, and Go clients that share a Transport between watches
// and writes got "server closed idle connection" on their next write.
func TestKeptAliveConnection(t *testing.T) {
	store := newHangStore()
	_, ts := startOps(t, apiserver.Options{Storage: store})
	a := createWidget(t, ts, "a", "")
	create := func(name string) string {
		return `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"}}`
	}
	for _, tc := range []struct {
		name, prefix string
		// first is the request that ends unusually.
		first func(k *keptAlive) response
		code  int
	}{
		{"a watch that times out", "w", func(k *keptAlive) response {
			return k.send("GET", widgetsPath+"?watch=1&timeoutSeconds=1&resourceVersion="+a.ResourceVersion, "", "")
		}, http.StatusOK},
		{"a create whose store hangs past timeout=", "c", func(k *keptAlive) response {
			store.hang.Store(true)
			defer store.hang.Store(false)
			r := k.send("POST", widgetsPath+"?timeout=200ms", "application/json", create("hung"))
			<-store.entered
			return r
		}, http.StatusGatewayTimeout},
		{"a delete whose store hangs past timeout=", "d", func(k *keptAlive) response {
			store.hang.Store(true)
			defer store.hang.Store(false)
			r := k.send("DELETE", widgetsPath+"/a?timeout=200ms", "", "")
			<-store.entered
			return r
		}, http.StatusGatewayTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := dialKeptAlive(t, ts.Listener.Addr().String())
			if r := tc.first(k); r.code != tc.code {
				t.Fatalf("first request: %d %s, want %d", r.code, r.body, tc.code)
			}
			// Let the server finish whatever it does after the response.
			time.Sleep(50 * time.Millisecond)
			for i := range 3 {
				if r := k.send("GET", widgetsPath, "", ""); r.code != http.StatusOK {
					t.Fatalf("list %d after it: %d %s", i, r.code, r.body)
				}
				if r := k.send("POST", widgetsPath, "application/json", create(fmt.Sprintf("%s-%d", tc.prefix, i))); r.code != http.StatusCreated {
					t.Fatalf("create %d after it: %d %s", i, r.code, r.body)
				}
			}
		})
	}
}

// TestTimeoutKeepsHTTP2Connection: over HTTP/2 a write that times out
// leaves the connection to the client's other requests, as
// kube-apiserver's does: the next request goes on the same connection.
// The 504's "Connection: close", meant for HTTP/1.1, made net/http's
// HTTP/2 server send GOAWAY, and every client sharing the connection
// (client-go multiplexes all of its requests and watches on one) had
// to dial a new one.
func TestTimeoutKeepsHTTP2Connection(t *testing.T) {
	store := newHangStore()
	srv := apiserver.New(apiserver.Options{Storage: store})
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	hc := ts.Client()

	first := sendTraced(t, hc, "GET", ts.URL+widgetsPath, "")
	if first.resp.ProtoMajor != 2 {
		t.Fatalf("served over %s, want HTTP/2", first.resp.Proto)
	}
	store.hang.Store(true)
	timedOut := sendTraced(t, hc, "POST", ts.URL+widgetsPath+"?timeout=200ms",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"hung"}}`)
	<-store.entered
	store.hang.Store(false)
	if timedOut.resp.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("create: %d %s, want 504", timedOut.resp.StatusCode, timedOut.body)
	}
	time.Sleep(50 * time.Millisecond) // time for a GOAWAY to arrive
	next := sendTraced(t, hc, "GET", ts.URL+widgetsPath, "")
	if !next.reused {
		t.Error("the request after a 504 Timeout went on a new connection: the server closed the one it shared")
	}
}

// traced is a response and whether it came on a connection used before.
type traced struct {
	resp   *http.Response
	body   []byte
	reused bool
}

// sendTraced sends a request with hc, reads its body to the end and
// reports whether it went on a reused connection.
func sendTraced(t *testing.T, hc *http.Client, method, url, body string) traced {
	t.Helper()
	var tr traced
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { tr.reused = info.Reused },
	}))
	if tr.resp, err = hc.Do(req); err != nil {
		t.Fatal(err)
	}
	defer tr.resp.Body.Close()
	if tr.body, err = io.ReadAll(tr.resp.Body); err != nil {
		t.Fatal(err)
	}
	return tr
}
