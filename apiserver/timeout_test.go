package apiserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
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

// slowStore makes every put take delay once it has started, and then
// makes it whatever the caller's context says: a store that applies a
// write it was too slow to answer.
type slowStore struct {
	storage.Interface
	delay time.Duration
}

func (s slowStore) OptimisticPut(ctx context.Context, key string, value []byte, rev int64, opts storage.PutOptions) (storage.PutResponse, error) {
	time.Sleep(s.delay)
	return s.Interface.OptimisticPut(context.WithoutCancel(ctx), key, value, rev, opts)
}

// TestTimeoutDuringWrite: a deadline that passes while the store is
// writing takes effect at once, as kube-apiserver's does: the client gets
// 504 Timeout (which says the write may still happen) without waiting for
// the store, and the write, which the store makes later, is there.
func TestTimeoutDuringWrite(t *testing.T) {
	const delay = 400 * time.Millisecond
	_, ts := startOps(t, apiserver.Options{Storage: slowStore{memory.New(memory.Options{}), delay}})
	start := time.Now()
	r := post(t, ts, "?timeout=100ms", "slow", "")
	if d := time.Since(start); d >= delay {
		t.Errorf("answered after %v: held until the store answered", d)
	}
	checkTimeout(t, r)
	if r.header.Get("Retry-After") != "" {
		t.Errorf("Retry-After %q on a write that may have happened", r.header.Get("Retry-After"))
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r := do(t, ts, "GET", widgetsPath+"/slow", "", "")
		if r.code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the write the store was making never landed: %d %s", r.code, r.body)
		}
	}
}

// hangStore hangs every write while hang is set, as etcd does when it
// cannot commit: the write returns only when its caller gives up.
type hangStore struct {
	storage.Interface
	hang    atomic.Bool
	entered chan string
}

func newHangStore() *hangStore {
	return &hangStore{Interface: memory.New(memory.Options{}), entered: make(chan string, 100)}
}

// wait returns when the caller gives up, or, as a store's own bound
// would, after a while.
func (s *hangStore) wait(ctx context.Context, key string) error {
	s.entered <- key
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(3 * time.Second):
		return errors.New("store: no answer")
	}
}

func (s *hangStore) OptimisticPut(ctx context.Context, key string, value []byte, rev int64, opts storage.PutOptions) (storage.PutResponse, error) {
	if s.hang.Load() {
		return storage.PutResponse{}, s.wait(ctx, key)
	}
	return s.Interface.OptimisticPut(ctx, key, value, rev, opts)
}

func (s *hangStore) OptimisticDelete(ctx context.Context, key string, rev int64, opts storage.DeleteOptions) (storage.DeleteResponse, error) {
	if s.hang.Load() {
		return storage.DeleteResponse{}, s.wait(ctx, key)
	}
	return s.Interface.OptimisticDelete(ctx, key, rev, opts)
}

// TestTimeoutStoreHangs: every write verb whose store does not answer
// before the request's deadline gets 504 Timeout at the deadline, with
// kube-apiserver's message and no Retry-After, and the store call is
// cancelled.
func TestTimeoutStoreHangs(t *testing.T) {
	store := newHangStore()
	_, ts := startOps(t, apiserver.Options{Storage: store})
	createWidget(t, ts, "a", "")
	store.hang.Store(true)
	for _, tc := range []struct{ method, path, contentType, body string }{
		{"POST", widgetsPath, "application/json", `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"b"}}`},
		{"PUT", widgetsPath + "/a", "application/json", `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"color":"red"}}`},
		{"PATCH", widgetsPath + "/a", "application/merge-patch+json", `{"spec":{"color":"blue"}}`},
		{"PATCH", widgetsPath + "/a/scale", "application/merge-patch+json", `{"spec":{"replicas":3}}`},
		{"DELETE", widgetsPath + "/a", "", ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			start := time.Now()
			r := do(t, ts, tc.method, tc.path+"?timeout=200ms", tc.contentType, tc.body)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("answered after %v", d)
			}
			checkTimeout(t, r)
			if st := decodeStatus(t, r); st.Details == nil || st.Details.RetryAfterSeconds != 0 || r.header.Get("Retry-After") != "" {
				t.Errorf("details %+v, Retry-After %q: a write that may have happened", st.Details, r.header.Get("Retry-After"))
			}
			select {
			case <-store.entered:
			default:
				t.Error("the write did not reach the store")
			}
		})
	}
}

// failingStore fails every write with err.
type failingStore struct {
	storage.Interface
	err error
}

func (s failingStore) OptimisticPut(context.Context, string, []byte, int64, storage.PutOptions) (storage.PutResponse, error) {
	return storage.PutResponse{}, s.err
}

// TestStoreFailures: a store that says a write timed out (it may still be
// applied) is answered 504 Timeout without Retry-After, as kube-apiserver
// answers when etcd hangs; one that says it could not be reached (nothing
// was written) 503 with Retry-After.
func TestStoreFailures(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		code       int
		reason     meta.StatusReason
		message    string
		retryAfter string
	}{
		{"timeout", &storage.Error{Code: storage.ErrTimeout, Err: context.DeadlineExceeded}, http.StatusGatewayTimeout, meta.StatusReasonTimeout,
			"Timeout: request did not complete within requested timeout - context deadline exceeded", ""},
		{"unavailable", &storage.Error{Code: storage.ErrUnavailable, Err: errors.New("no leader")}, http.StatusServiceUnavailable,
			meta.StatusReasonServiceUnavailable, "storage is unavailable, please try again", "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ts := startOps(t, apiserver.Options{Storage: failingStore{memory.New(memory.Options{}), tc.err}})
			r := post(t, ts, "", "a", "")
			st := decodeStatus(t, r)
			got := fmt.Sprintf("%d %s %q Retry-After=%q", r.code, st.Reason, st.Message, r.header.Get("Retry-After"))
			want := fmt.Sprintf("%d %s %q Retry-After=%q", tc.code, tc.reason, tc.message, tc.retryAfter)
			if got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
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
