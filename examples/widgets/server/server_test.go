package server

import (
	"bytes"
	"context"
	"net"
	"net/http"
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
