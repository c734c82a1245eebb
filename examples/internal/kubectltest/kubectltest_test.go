package kubectltest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/internal/kubeconfig"
	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// fakeServer answers /version like kube-apiserver, streams numbered lines
// from /stream until the client goes away, and 404s everything else. It
// records the Authorization header of each request.
type fakeServer struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newFakeServer(t *testing.T) *fakeServer {
	f := &fakeServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.auths = append(f.auths, r.Header.Get("Authorization"))
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"major":"1","minor":"37","gitVersion":"v1.37.0","gitCommit":"0000000000000000000000000000000000000000","gitTreeState":"clean","buildDate":"2026-01-01T00:00:00Z","goVersion":"go1.26.8","compiler":"gc","platform":"linux/amd64"}`)
	})
	mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fl := w.(http.Flusher)
		for i := 0; ; i++ {
			fmt.Fprintf(w, "line %d\n", i)
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`)
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func TestVersion(t *testing.T) {
	srv := newFakeServer(t)
	k := kubectltest.New(t, srv.URL)

	stdout, stderr, err := k.Run(context.Background(), "", "version", "-o", "json")
	if err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	var v struct {
		ClientVersion struct{ Major, Minor, GitVersion string }
		ServerVersion struct{ Major, Minor, GitVersion string }
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("decoding %q: %v", stdout, err)
	}
	if got := v.ServerVersion; got.Major != "1" || got.Minor != "37" || got.GitVersion != "v1.37.0" {
		t.Errorf("serverVersion = %+v, want 1, 37, v1.37.0", got)
	}
	// The binary is stamped with the Kubernetes version of the kubectl module.
	if got := v.ClientVersion; got.Major != "1" || !strings.HasPrefix(got.GitVersion, "v1."+got.Minor+".") {
		t.Errorf("clientVersion = %+v, want a v1.x.y release version", got)
	}
	if stderr != "" {
		t.Errorf("stderr = %q, want empty (no version-skew warning)", stderr)
	}
}

func TestNamespaceAndToken(t *testing.T) {
	srv := newFakeServer(t)
	k := kubectltest.New(t, srv.URL)

	if got := k.MustRun("config", "view", "--minify", "-o", "jsonpath={.contexts[0].context.namespace}"); got != "default" {
		t.Errorf("context namespace = %q, want default", got)
	}

	k.MustRun("version")
	if err := kubeconfig.Write(k.Kubeconfig, kubeconfig.Config{Server: srv.URL, Namespace: "other", Token: "s3cret"}); err != nil {
		t.Fatal(err)
	}
	if got := k.MustRun("config", "view", "--minify", "-o", "jsonpath={.contexts[0].context.namespace}"); got != "other" {
		t.Errorf("context namespace = %q, want other", got)
	}
	k.MustRun("version")
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if want := []string{"", "Bearer s3cret"}; strings.Join(srv.auths, ",") != strings.Join(want, ",") {
		t.Errorf("Authorization headers = %q, want %q", srv.auths, want)
	}
}

func TestFailureIsExitError(t *testing.T) {
	srv := newFakeServer(t)
	k := kubectltest.New(t, srv.URL)

	stdout, stderr, err := k.Run(context.Background(), "", "get", "--raw", "/nope")
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("err = %v (%T), want an *exec.ExitError; stdout %q, stderr %q", err, err, stdout, stderr)
	}
	if exit.ExitCode() != 1 {
		t.Errorf("exit code = %d, want 1", exit.ExitCode())
	}
	if !strings.Contains(stderr, "NotFound") && !strings.Contains(stderr, "could not find the requested resource") {
		t.Errorf("stderr = %q, want the server's NotFound message", stderr)
	}
}

func TestStdinAndTimeout(t *testing.T) {
	srv := newFakeServer(t)
	k := kubectltest.New(t, srv.URL)

	// kubectl reads a kubeconfig-free command's input from stdin: "-f -"
	// with --dry-run=client and -o name needs no server at all... except
	// discovery, so feed stdin to something local instead.
	stdout, stderr, err := k.Run(context.Background(), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		"create", "-f", "-", "--dry-run=client", "-o", "name", "--validate=false")
	// The fake server has no discovery, so kubectl cannot map the kind;
	// what matters is that it read stdin and failed cleanly.
	if err == nil && strings.TrimSpace(stdout) != "configmap/x" {
		t.Errorf("stdout = %q, want configmap/x", stdout)
	}
	if err != nil && !strings.Contains(stderr, "ConfigMap") && !strings.Contains(stderr, "resource") {
		t.Errorf("stderr = %q does not mention the object read from stdin", stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = k.Run(ctx, "", "get", "--raw", "/stream")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timed-out run took %v", d)
	}
}

func TestStart(t *testing.T) {
	srv := newFakeServer(t)
	k := kubectltest.New(t, srv.URL)

	p, err := k.Start(context.Background(), "get", "--raw", "/stream")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		line, err := p.NextLine(30 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("line %d", i); line != want {
			t.Fatalf("line %d = %q, want %q", i, line, want)
		}
	}
	if err := p.Stop(); err != nil {
		t.Errorf("Stop = %v, want nil", err)
	}
	// After Stop, the remaining buffered lines drain and then io.EOF.
	for {
		_, err := p.NextLine(time.Second)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after Stop: %v", err)
		}
	}

	// A command that exits by itself reports its status through Wait.
	p, err = k.Start(context.Background(), "get", "--raw", "/nope")
	if err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := p.Wait(); !errors.As(err, &exit) {
		t.Errorf("Wait = %v, want an *exec.ExitError", err)
	}
	if err := p.Stop(); !errors.As(err, &exit) {
		t.Errorf("Stop after exit = %v, want the exit error", err)
	}
	if _, err := p.NextLine(time.Second); err != io.EOF {
		t.Errorf("NextLine after exit = %v, want io.EOF", err)
	}
}

func TestHomeIsolated(t *testing.T) {
	srv := newFakeServer(t)
	k := kubectltest.New(t, srv.URL)
	// Discovery against the fake fails, but whatever kubectl caches goes
	// under the test's HOME, never the developer's.
	k.Run(context.Background(), "", "api-resources")
	if !strings.HasPrefix(k.Home, os.TempDir()) && !strings.HasPrefix(k.Home, filepath.Clean(t.TempDir()+"/..")) {
		t.Errorf("Home = %q, want a temporary directory", k.Home)
	}
}
