package bench_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/bench"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// cascadeDependents is how many Widgets the cascade benchmarks delete.
const cascadeDependents = 10_000

// BenchmarkCascadeDelete deletes a Gadget (cluster-scoped) that owns
// 10,000 Widgets, with the Background and Foreground policies, on the
// example server with its garbage collector: ns/op is the time from the
// DELETE to the last Widget gone (Foreground: to the Gadget gone, which
// is later), peak-heap-B the live heap's peak over the run less the heap
// before it.
func BenchmarkCascadeDelete(b *testing.B) {
	for _, policy := range []string{"Background", "Foreground"} {
		b.Run("policy="+policy, func(b *testing.B) {
			var peak uint64
			for range b.N {
				b.StopTimer()
				srv := openServer(b)
				uid := post(b, srv, "/apis/stable.example.com/v1/gadgets", `{"metadata":{"name":"owner"}}`)
				owner := fmt.Sprintf(`[{"apiVersion":"stable.example.com/v1","kind":"Gadget","name":"owner","uid":%q,"blockOwnerDeletion":true}]`, uid)
				loadWidgets(b, srv, bench.Namespace, owner)
				sampler := startHeapSampler()
				b.StartTimer()
				send(b, srv, http.MethodDelete, "/apis/stable.example.com/v1/gadgets/owner?propagationPolicy="+policy, "", http.StatusOK, http.StatusAccepted)
				waitFor(b, func() bool { return count(b, srv, bench.CollectionPath) == 0 })
				if policy == "Foreground" {
					waitFor(b, func() bool { return status(srv, "/apis/stable.example.com/v1/gadgets/owner") == http.StatusNotFound })
				}
				b.StopTimer()
				peak = max(peak, sampler.stop())
				srv.Close()
			}
			b.ReportMetric(float64(peak), "peak-heap-B")
		})
	}
}

// BenchmarkNamespaceDelete deletes a namespace holding 10,000 Widgets on
// the example server with its namespace controller: ns/op is the time
// from the DELETE to the namespace gone; peak-heap-B as above.
func BenchmarkNamespaceDelete(b *testing.B) {
	var peak uint64
	for range b.N {
		b.StopTimer()
		srv := openServer(b)
		loadWidgets(b, srv, bench.Namespace, "")
		sampler := startHeapSampler()
		b.StartTimer()
		send(b, srv, http.MethodDelete, "/api/v1/namespaces/"+bench.Namespace, "", http.StatusOK)
		waitFor(b, func() bool { return status(srv, "/api/v1/namespaces/"+bench.Namespace) == http.StatusNotFound })
		b.StopTimer()
		peak = max(peak, sampler.stop())
		if n := count(b, srv, bench.CollectionPath); n != 0 {
			b.Fatalf("%d Widgets left", n)
		}
		srv.Close()
	}
	b.ReportMetric(float64(peak), "peak-heap-B")
}

func openServer(b *testing.B) *server.Server {
	b.Helper()
	srv, err := server.Open(server.Config{})
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

// loadWidgets creates namespace ns and cascadeDependents Widgets in it,
// with the given ownerReferences JSON (or none).
func loadWidgets(b *testing.B, srv *server.Server, ns, owners string) {
	b.Helper()
	if err := createNamespace(srv.Handler, ns); err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= cascadeDependents {
					return
				}
				meta := fmt.Sprintf(`{"name":%q`, bench.Name("widget", i))
				if owners != "" {
					meta += `,"ownerReferences":` + owners
				}
				post(b, srv, "/apis/stable.example.com/v1/namespaces/"+ns+"/widgets", `{"metadata":`+meta+`},"spec":{"color":"red"}}`)
			}
		}()
	}
	wg.Wait()
	// Let the collector's mirror take them in before the clock starts.
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
}

func post(b *testing.B, srv *server.Server, path, body string) string {
	resp := send(b, srv, http.MethodPost, path, body, http.StatusCreated)
	var obj struct{ Metadata struct{ UID string } }
	if err := json.Unmarshal(resp, &obj); err != nil {
		b.Error(err)
	}
	return obj.Metadata.UID
}

func send(b *testing.B, srv *server.Server, method, path, body string, want ...int) []byte {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	srv.Handler.ServeHTTP(rec, req)
	for _, w := range want {
		if rec.Code == w {
			return rec.Body.Bytes()
		}
	}
	b.Errorf("%s %s: %d %.300s", method, path, rec.Code, rec.Body)
	return nil
}

func status(srv *server.Server, path string) int {
	rec := httptest.NewRecorder()
	srv.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code
}

// count is the number of objects in a collection (one page of at most
// one item and the remaining count).
func count(b *testing.B, srv *server.Server, path string) int {
	var list struct {
		Metadata struct{ RemainingItemCount *int }
		Items    []json.RawMessage
	}
	if err := json.Unmarshal(send(b, srv, http.MethodGet, path+"?limit=1", "", http.StatusOK), &list); err != nil {
		b.Fatal(err)
	}
	n := len(list.Items)
	if list.Metadata.RemainingItemCount != nil {
		n += *list.Metadata.RemainingItemCount
	}
	return n
}

func waitFor(b *testing.B, cond func() bool) {
	deadline := time.Now().Add(5 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// heapSampler records the live heap's peak above where it started.
type heapSampler struct {
	base, peak uint64
	done       chan struct{}
	stopped    chan struct{}
}

func startHeapSampler() *heapSampler {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := &heapSampler{base: ms.HeapAlloc, done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > s.peak {
					s.peak = ms.HeapAlloc
				}
			}
		}
	}()
	return s
}

func (s *heapSampler) stop() uint64 {
	close(s.done)
	<-s.stopped
	if s.peak < s.base {
		return 0
	}
	return s.peak - s.base
}
