package apiserver

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
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
	s := New(Options{})
	const timeout = 20 * time.Millisecond
	w := &lateWriter{ResponseRecorder: httptest.NewRecorder()}
	r := httptest.NewRequest(http.MethodGet, "/apis/stable.example.com/v1/widgets", nil)
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Fatalf("recovered %v, want the handler's panic", p)
			}
		}()
		s.withTimeout(w, r, timeout, nil, func(http.ResponseWriter, *http.Request) { panic("boom") })
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
	s := New(Options{})
	t.Cleanup(s.Close)
	r := httptest.NewRequest("GET", "/apis/g/v1/things/x", nil)
	w := &discardWriter{h: http.Header{}}
	serve := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }
	allocs := testing.AllocsPerRun(200, func() { s.withTimeout(w, r, time.Minute, nil, serve) })
	if allocs > 8 {
		t.Errorf("a request under a deadline allocates %v times, want at most 8", allocs)
	}
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
