package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// lateWriter records whether anything was written after the request
// ended; net/http crashes the process on a Flush after a handler returned.
type lateWriter struct {
	*httptest.ResponseRecorder
	mu    sync.Mutex
	ended bool
	late  int
}

func (l *lateWriter) touch() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		l.late++
	}
}

func (l *lateWriter) WriteHeader(code int)        { l.touch(); l.ResponseRecorder.WriteHeader(code) }
func (l *lateWriter) Write(b []byte) (int, error) { l.touch(); return l.ResponseRecorder.Write(b) }
func (l *lateWriter) Flush()                      { l.touch(); l.ResponseRecorder.Flush() }

// TestTimeoutAfterHandlerPanic: a handler that panics is answered by the
// panic handler further up; its request timer must be stopped, not left to
// write a 504 into a response that has ended.
func TestTimeoutAfterHandlerPanic(t *testing.T) {
	s := newServer(Options{})
	const timeout = 20 * time.Millisecond
	w := &lateWriter{ResponseRecorder: httptest.NewRecorder()}
	r := httptest.NewRequest(http.MethodGet, "/apis/stable.example.com/v1/widgets", nil)
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Fatalf("recovered %v, want the handler's panic", p)
			}
		}()
		filters.WithTimeout(w, r, timeout, nil, s.Guard.WriteError, func(http.ResponseWriter, *http.Request) { panic("boom") })
	}()
	w.mu.Lock()
	w.ended = true
	w.mu.Unlock()
	// Give a timer left running many times its period to fire.
	time.Sleep(50 * timeout)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.late != 0 {
		t.Errorf("%d writes to the response after it ended (code %d)", w.late, w.Code)
	}
}

// TestDeadlineAllocations: putting a request under its deadline costs the
// context (a cancel context and the deadline's value), the request's
// copy carrying it, the timer and its function, the handler's header map
// and one value for the rest (writer, deadline, what the timer needs): 8
// allocations, whatever the handler does.
func TestDeadlineAllocations(t *testing.T) {
	s := newServer(Options{})
	t.Cleanup(s.kinds.Close)
	r := httptest.NewRequest("GET", "/apis/g/v1/things/x", nil)
	w := &discardWriter{h: http.Header{}}
	serve := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }
	allocs := testing.AllocsPerRun(200, func() { filters.WithTimeout(w, r, time.Minute, nil, s.Guard.WriteError, serve) })
	if allocs > 8 {
		t.Errorf("a request under a deadline allocates %v times, want at most 8", allocs)
	}
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }

// boundThing is a kind for TestWriteTimeoutBound.
type boundThing struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
}

// stuckStore hangs every write while stuck is set, until the caller gives
// up.
type stuckStore struct {
	storage.Interface
	stuck atomic.Bool
}

func (s *stuckStore) OptimisticPut(ctx context.Context, key string, value []byte, rev int64, opts storage.PutOptions) (storage.PutResponse, error) {
	if s.stuck.Load() {
		<-ctx.Done()
		return storage.PutResponse{}, ctx.Err()
	}
	return s.Interface.OptimisticPut(ctx, key, value, rev, opts)
}

func (s *stuckStore) OptimisticDelete(ctx context.Context, key string, rev int64, opts storage.DeleteOptions) (storage.DeleteResponse, error) {
	if s.stuck.Load() {
		<-ctx.Done()
		return storage.DeleteResponse{}, ctx.Err()
	}
	return s.Interface.OptimisticDelete(ctx, key, rev, opts)
}

// TestWriteTimeoutBound: a write of one object runs for at most the
// write bound (kube-apiserver's 34 s, shortened here) when its request
// may run longer, and then gets kube-apiserver's message for it; a
// client's shorter timeout= keeps the timeout filter's message; a delete
// of a collection is not bound, as in kube-apiserver.
func TestWriteTimeoutBound(t *testing.T) {
	const bound = 150 * time.Millisecond
	store := &stuckStore{Interface: memory.New(memory.Options{})}
	s := newServer(Options{Storage: store})
	s.WriteTimeout = bound
	s.kinds.Register(Kind{Group: "stable.example.com", Version: "v1", Kind: "BoundThing", Resource: "boundthings",
		Namespaced: true, New: func() meta.Object { return &boundThing{} }})
	if err := s.kinds.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	t.Cleanup(s.kinds.Close)
	const path = "/apis/stable.example.com/v1/namespaces/default/boundthings"
	const thing = `{"apiVersion":"stable.example.com/v1","kind":"BoundThing","metadata":{"name":"a"}}`
	if r, err := http.Post(ts.URL+path, "application/json", strings.NewReader(thing)); err != nil || r.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", r, err)
	}
	store.stuck.Store(true)
	for _, tc := range []struct {
		name, method, query string
		message             string
		atLeast             time.Duration
	}{
		{"create", "POST", "", filters.WriteTimeoutMessage, bound},
		{"create, shorter timeout=", "POST", "?timeout=100ms", filters.TimeoutMessage, 100 * time.Millisecond},
		{"delete", "DELETE", "/a", filters.WriteTimeoutMessage, bound},
		{"delete collection", "DELETE", "?timeout=400ms", filters.TimeoutMessage, 400 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+path+tc.query, strings.NewReader(thing))
			req.Header.Set("Content-Type", "application/json")
			start := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			took := time.Since(start)
			var st meta.Status
			if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusGatewayTimeout || st.Reason != meta.StatusReasonTimeout || st.Message != tc.message {
				t.Errorf("%d %s %q, want 504 Timeout %q", resp.StatusCode, st.Reason, st.Message, tc.message)
			}
			if took < tc.atLeast || took > tc.atLeast+5*time.Second {
				t.Errorf("answered after %v, want %v", took, tc.atLeast)
			}
		})
	}
}
