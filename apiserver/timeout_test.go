package apiserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// ends is an Observer that reports each finished request.
type ends struct {
	apiserver.Observer // nil: only ObserveRequest and ObserveResources are called here
	done               chan apiserver.RequestRecord
}

func newEnds() *ends { return &ends{done: make(chan apiserver.RequestRecord, 100)} }

func (e *ends) ObserveRequest(r *apiserver.RequestRecord)         { e.done <- *r }
func (e *ends) ObserveInflight(string, int)                       {}
func (e *ends) ObserveLongRunning(*apiserver.RequestLabels, int)  {}
func (e *ends) ObserveWatchers(string, string, string, int)       {}
func (e *ends) ObserveWatchEvent(string, string, string, int)     {}
func (e *ends) ObserveResources(func() []apiserver.ResourceStats) {}
func (e *ends) ObserveConsistentRead(string, string, bool, bool)  {}

// next waits for the next finished request whose verb is verb.
func (e *ends) next(t *testing.T, verb string) apiserver.RequestRecord {
	t.Helper()
	for {
		select {
		case r := <-e.done:
			if r.Verb == verb {
				return r
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s request finished", verb)
		}
	}
}

func checkTimeout(t *testing.T, r response) {
	t.Helper()
	if r.code != http.StatusGatewayTimeout {
		t.Fatalf("code %d, want 504: %s", r.code, r.body)
	}
	st := decodeStatus(t, r)
	if st.Reason != meta.StatusReasonTimeout || st.Message != "Timeout: request did not complete within the allotted timeout" {
		t.Errorf("Status %+v", st)
	}
}

// TestTimeoutStoresNothing: a create held in admission past the client's
// timeout= gets 504 Timeout; the handler's context is cancelled; and
// when the held admission returns, the write does not happen, whether
// admission gave up with the context or ignored it.
func TestTimeoutStoresNothing(t *testing.T) {
	store := memory.New(memory.Options{})
	cancelled := make(chan error, 2)
	ignore := make(chan struct{})
	hook := func(ctx context.Context, req *apiserver.AdmissionRequest) error {
		switch req.Name {
		case "obeys":
			<-ctx.Done()
			cancelled <- ctx.Err()
			return ctx.Err()
		case "ignores":
			<-ignore // does not watch ctx
			cancelled <- ctx.Err()
		}
		return nil
	}
	obs := newEnds()
	_, ts := startOps(t, apiserver.Options{Storage: store, Observer: obs,
		MutatingAdmission: []apiserver.AdmissionFunc{hook}})
	for _, name := range []string{"obeys", "ignores"} {
		start := time.Now()
		r := post(t, ts, "?timeout=200ms", name, "")
		if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
			t.Errorf("%s: answered after %v with timeout=200ms", name, d)
		}
		checkTimeout(t, r)
		if name == "ignores" {
			close(ignore)
		}
		if err := <-cancelled; err != context.Canceled {
			t.Errorf("%s: the handler's context: %v, want cancelled", name, err)
		}
		if rec := obs.next(t, "POST"); !rec.TimedOut || rec.Code != http.StatusGatewayTimeout {
			t.Errorf("%s: record %+v", name, rec)
		}
		got, err := store.Get(context.Background(), "/stable.example.com/widgets/default/"+name, storage.GetOptions{})
		if err != nil || got.KV != nil {
			t.Errorf("%s: stored after a 504: %+v %v", name, got.KV, err)
		}
	}
}

// slowStore makes every put take delay once it has started.
type slowStore struct {
	storage.Interface
	delay time.Duration
}

func (s slowStore) OptimisticPut(ctx context.Context, key string, value []byte, rev int64, opts storage.PutOptions) (storage.PutResponse, error) {
	time.Sleep(s.delay)
	return s.Interface.OptimisticPut(context.WithoutCancel(ctx), key, value, rev, opts)
}

// TestTimeoutDuringWrite: a deadline that passes while the store is
// writing waits for the write: the client gets 201 and the object is
// stored, never a 504 for a write that happened.
func TestTimeoutDuringWrite(t *testing.T) {
	_, ts := startOps(t, apiserver.Options{Storage: slowStore{memory.New(memory.Options{}), 400 * time.Millisecond}})
	if r := post(t, ts, "?timeout=100ms", "slow", ""); r.code != http.StatusCreated {
		t.Fatalf("write under way at the deadline: %d %s", r.code, r.body)
	}
	if r := do(t, ts, "GET", widgetsPath+"/slow", "", ""); r.code != http.StatusOK {
		t.Errorf("read back: %d %s", r.code, r.body)
	}
}

// TestRequestTimeout: the server's timeout bounds requests whose
// timeout= is larger or absent; a malformed timeout= is a 400; a watch is
// not bound by it.
func TestRequestTimeout(t *testing.T) {
	g := newGate()
	defer g.open()
	_, ts := startOps(t, apiserver.Options{RequestTimeout: 300 * time.Millisecond,
		MutatingAdmission: []apiserver.AdmissionFunc{g.admit}})
	checkTimeout(t, post(t, ts, "?timeout=1m", "block-1", ""))
	checkTimeout(t, post(t, ts, "", "block-2", ""))

	r := do(t, ts, "GET", widgetsPath+"?timeout=soon", "", "")
	if st := decodeStatus(t, r); r.code != http.StatusBadRequest ||
		st.Message != `invalid timeout specified in the request URL - time: invalid duration "soon"` {
		t.Errorf("malformed timeout: %d %s", r.code, r.body)
	}

	resp, err := http.Get(ts.URL + widgetsPath + "?watch=true&timeoutSeconds=5")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(500 * time.Millisecond)
	g.open()
	post(t, ts, "", "after", "")
	buf := make([]byte, 4096)
	n, err := resp.Body.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), `"name":"after"`) {
		t.Errorf("watch past the request timeout: %q %v", buf[:n], err)
	}
}

// TestTimeoutTricklingBody: a body that stops arriving holds its request
// no longer than the timeout, even when the client keeps the connection
// open: the client gets 504, the handler stops reading and returns, and
// nothing is stored.
func TestTimeoutTricklingBody(t *testing.T) {
	store := memory.New(memory.Options{})
	obs := newEnds()
	_, ts := startOps(t, apiserver.Options{Storage: store, Observer: obs})
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s?timeout=300ms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"+
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"trickle"`, widgetsPath)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	checkTimeout(t, response{code: resp.StatusCode, header: resp.Header, body: b})
	obs.next(t, "POST") // the handler returned though the connection is still open
	if got, _ := store.Get(context.Background(), "/stable.example.com/widgets/default/trickle", storage.GetOptions{}); got.KV != nil {
		t.Error("stored")
	}
}
