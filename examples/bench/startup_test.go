package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/bench"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// BenchmarkStartToReady measures how long the Widget server on the memory
// store takes from start to serving:
//
//	path=open  server.Open, then in-process requests: ready-ns until /readyz
//	           answers 200, list-ns until a Widget list answers 200 (the
//	           kind's watch cache has loaded); with the garbage collector
//	           and namespace controller (controllers=on) and without
//	path=run   server.Run on 127.0.0.1:0, then requests over loopback:
//	           ready-ns until /readyz answers 200, list-ns as above
//
// Both figures count from the call that starts the server; ns/op also
// includes shutting it down.
func BenchmarkStartToReady(b *testing.B) {
	for _, on := range []bool{true, false} {
		b.Run("path=open/"+controllersName(on), func(b *testing.B) {
			var ready, list time.Duration
			for range b.N {
				start := time.Now()
				srv, err := server.Open(server.Config{DisableControllers: !on})
				if err != nil {
					b.Fatal(err)
				}
				get := func(path string) (int, error) {
					rec := httptest.NewRecorder()
					srv.Handler.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
					return rec.Code, nil
				}
				r, l, err := untilServing(start, get)
				srv.Close()
				if err != nil {
					b.Fatal(err)
				}
				ready, list = ready+r, list+l
			}
			reportStart(b, ready, list)
		})
	}
	b.Run("path=run", func(b *testing.B) {
		kubeconfig := filepath.Join(b.TempDir(), "kubeconfig")
		hc := &http.Client{Transport: &http.Transport{}}
		defer hc.CloseIdleConnections()
		var ready, list time.Duration
		for range b.N {
			r, l, err := runOnce(hc, kubeconfig)
			if err != nil {
				b.Fatal(err)
			}
			ready, list = ready+r, list+l
		}
		reportStart(b, ready, list)
	})
}

func reportStart(b *testing.B, ready, list time.Duration) {
	b.ReportMetric(float64(ready.Nanoseconds())/float64(b.N), "ready-ns")
	b.ReportMetric(float64(list.Nanoseconds())/float64(b.N), "list-ns")
}

// startupTimeout bounds the wait for a server to serve.
const startupTimeout = 10 * time.Second

// untilServing polls /readyz and then the Widget collection with get
// until each answers 200, and returns how long after start each did.
func untilServing(start time.Time, get func(path string) (int, error)) (ready, list time.Duration, err error) {
	wait := func(path string) (time.Duration, error) {
		for {
			code, err := get(path)
			if err == nil && code == http.StatusOK {
				return time.Since(start), nil
			}
			if time.Since(start) > startupTimeout {
				return 0, fmt.Errorf("GET %s: %d, %v after %v", path, code, err, startupTimeout)
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
	if ready, err = wait("/readyz"); err != nil {
		return 0, 0, err
	}
	list, err = wait(bench.CollectionPath)
	return ready, list, err
}

// runOnce starts server.Run on a free loopback port, measures it with
// untilServing over hc and stops it.
func runOnce(hc *http.Client, kubeconfig string) (ready, list time.Duration, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	out := &urlWriter{found: make(chan string, 1)}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- server.Run(ctx, []string{"--addr", "127.0.0.1:0", "--kubeconfig", kubeconfig}, out, &bytes.Buffer{})
	}()
	defer func() {
		cancel()
		if rerr := <-done; err == nil {
			err = rerr
		}
	}()
	var base string
	select {
	case base = <-out.found:
	case err := <-done:
		done <- err
		return 0, 0, fmt.Errorf("server ended before listening: %v", err)
	case <-time.After(startupTimeout):
		return 0, 0, fmt.Errorf("server not listening after %v", startupTimeout)
	}
	get := func(path string) (int, error) {
		resp, err := hc.Get(base + path)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	return untilServing(start, get)
}

// urlWriter takes the server's start-up output and sends the URL it
// listens on, once.
type urlWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	found chan string
	sent  bool
}

var listeningRE = regexp.MustCompile(`listening on (\S+)`)

func (w *urlWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := listeningRE.FindSubmatch(w.buf.Bytes()); m != nil && !w.sent {
		w.sent = true
		w.found <- string(m[1])
	}
	return len(p), nil
}
