package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine's writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestRunServesWritesKubeconfigAndStops(t *testing.T) {
	addr := freeAddr(t)
	kc := filepath.Join(t.TempDir(), "kapi.kubeconfig")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- Run(ctx, []string{"--addr", addr, "--kubeconfig", kc, "-v"}, &stdout, &stderr) }()

	var resp *http.Response
	var err error
	for i := 0; i < 100; i++ {
		if resp, err = http.Get("http://" + addr + "/apis/stable.example.com/v1/namespaces/default/widgets"); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("list widgets: %d", resp.StatusCode)
	}
	b, err := os.ReadFile(kc)
	if err != nil || !strings.Contains(string(b), "server: \"http://"+addr+"\"") {
		t.Errorf("kubeconfig: %v\n%s", err, b)
	}
	if !strings.Contains(stdout.String(), "export KUBECONFIG="+kc) {
		t.Errorf("usage not printed: %s", stdout.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop")
	}
	if !strings.Contains(stderr.String(), "msg=request") || !strings.Contains(stderr.String(), "uri=/apis/stable.example.com/v1/namespaces/default/widgets") {
		t.Errorf("request not logged at debug level: %s", stderr.String())
	}
}

func TestUnknownStorage(t *testing.T) {
	const want = `unknown storage "floppy" (supported: memory, etcd, embedded-etcd)`
	if _, err := NewHandler(Config{Storage: "floppy"}); err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	err := Run(context.Background(), []string{"--storage", "floppy", "--addr", freeAddr(t), "--kubeconfig", filepath.Join(t.TempDir(), "k")}, &syncBuffer{}, &syncBuffer{})
	if err == nil || err.Error() != want {
		t.Errorf("Run: %v, want %s", err, want)
	}
}

// TestStorageNeedsItsFlags checks that each etcd backend refuses to start
// without the flag it needs, naming it.
func TestStorageNeedsItsFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--storage", "etcd"}, "--etcd-endpoints"},
		{[]string{"--storage", "etcd", "--etcd-endpoints", " , "}, "--etcd-endpoints"},
		{[]string{"--storage", "embedded-etcd"}, "--data-dir"},
	} {
		args := append(tc.args, "--addr", freeAddr(t), "--kubeconfig", filepath.Join(t.TempDir(), "k"))
		err := Run(context.Background(), args, &syncBuffer{}, &syncBuffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
}

// TestHelpListsStorage checks that --help documents the storage flags.
func TestHelpListsStorage(t *testing.T) {
	var stderr syncBuffer
	if err := Run(context.Background(), []string{"-h"}, &syncBuffer{}, &stderr); err == nil {
		t.Error("-h did not stop Run")
	}
	for _, want := range []string{"memory, etcd, embedded-etcd", "-etcd-endpoints", "-data-dir", "-etcd-prefix"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestDisableControllers checks that a server with DisableControllers
// serves the API and checks namespaces on writes, but holds no leader
// Lease and leaves a deleted namespace Terminating, while one with its
// controllers removes it.
func TestDisableControllers(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		t.Run(fmt.Sprintf("disabled=%v", disabled), func(t *testing.T) {
			srv, err := Open(Config{DisableControllers: disabled})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			do := func(method, path, body string) int {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(method, path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				srv.Handler.ServeHTTP(rec, req)
				return rec.Code
			}
			if code := do("POST", "/api/v1/namespaces/missing/configmaps", `{"metadata":{"name":"c"}}`); code != http.StatusNotFound {
				t.Fatalf("a write into a missing namespace: %d, want 404", code)
			}
			if code := do("POST", "/api/v1/namespaces", `{"metadata":{"name":"doomed"}}`); code != http.StatusCreated {
				t.Fatalf("creating the namespace: %d", code)
			}
			if code := do("DELETE", "/api/v1/namespaces/doomed", ""); code != http.StatusOK {
				t.Fatalf("deleting the namespace: %d", code)
			}
			lease := "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controllers"
			if !disabled {
				deadline := time.Now().Add(20 * time.Second)
				for do("GET", "/api/v1/namespaces/doomed", "") != http.StatusNotFound || do("GET", lease, "") != http.StatusOK {
					if time.Now().After(deadline) {
						t.Fatal("the controllers did not take the lease and remove the namespace within 20s")
					}
					time.Sleep(10 * time.Millisecond)
				}
				return
			}
			// Nothing is to happen: give the controllers, were they
			// running, time to act.
			time.Sleep(500 * time.Millisecond)
			if code := do("GET", "/api/v1/namespaces/doomed", ""); code != http.StatusOK {
				t.Errorf("the namespace went (%d) with the controllers disabled", code)
			}
			if code := do("GET", lease, ""); code != http.StatusNotFound {
				t.Errorf("the controllers' lease: %d, want 404", code)
			}
		})
	}
}
