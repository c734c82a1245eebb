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
// from /stream until the client goes away, echoes what is POSTed to /echo,
// and 404s everything else. It records the Authorization header of each
// /version request.
type fakeServer struct {
	*httptest.Server
	mu        sync.Mutex
	auths     []string
	userAgent string
}

func newFakeServer(t *testing.T) *fakeServer { return startFakeServer(t, false) }

func startFakeServer(t *testing.T, tls bool) *fakeServer {
	f := &fakeServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.auths = append(f.auths, r.Header.Get("Authorization"))
		f.userAgent = r.Header.Get("User-Agent")
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
	mux.HandleFunc("GET /api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]}`)
	})
	mux.HandleFunc("GET /api/v1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list"]}]}`)
	})
	mux.HandleFunc("GET /apis", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`)
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.Copy(w, r.Body)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`)
	})
	if tls {
		f.Server = httptest.NewTLSServer(mux)
	} else {
		f.Server = httptest.NewServer(mux)
	}
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
	srv.mu.Lock()
	ua := srv.userAgent
	srv.mu.Unlock()
	if want := "kubectl/" + v.ClientVersion.GitVersion + " ("; !strings.HasPrefix(ua, want) {
		t.Errorf("User-Agent = %q, want prefix %q", ua, want)
	}
}

func TestNamespace(t *testing.T) {
	srv := newFakeServer(t)
	k := kubectltest.New(t, srv.URL)
	jsonpath := "jsonpath={.contexts[0].context.namespace}"
	if got := k.MustRun("config", "view", "--minify", "-o", jsonpath); got != "default" {
		t.Errorf("context namespace = %q, want default", got)
	}
	if err := kubeconfig.Write(k.Kubeconfig, srv.URL, "other"); err != nil {
		t.Fatal(err)
	}
	if got := k.MustRun("config", "view", "--minify", "-o", jsonpath); got != "other" {
		t.Errorf("context namespace = %q, want other", got)
	}
}

// client-go sends a kubeconfig user's credentials only to https servers.
func TestTokenOverTLS(t *testing.T) {
	srv := startFakeServer(t, true)
	k := kubectltest.New(t, srv.URL) // the placeholder token, no certificate check
	k.MustRun("version")
	if err := kubeconfig.WriteConfig(k.Kubeconfig, kubeconfig.Config{
		Server: srv.URL, Token: "s3cret", InsecureSkipTLSVerify: true,
	}); err != nil {
		t.Fatal(err)
	}
	k.MustRun("version")
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if got, want := strings.Join(srv.auths, ","), "Bearer "+kubeconfig.PlaceholderToken+",Bearer s3cret"; got != want {
		t.Errorf("Authorization headers = %q, want %q", got, want)
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

	const body = "hello\nfrom stdin\n"
	stdout, stderr, err := k.Run(context.Background(), body, "create", "--raw", "/echo", "-f", "-")
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	if stdout != body {
		t.Errorf("stdout = %q, want %q", stdout, body)
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

func TestDiscoveryCacheInTestHome(t *testing.T) {
	srv := newFakeServer(t)
	k := kubectltest.New(t, srv.URL)
	stdout := k.MustRun("api-resources", "-o", "name")
	if strings.TrimSpace(stdout) != "configmaps" {
		t.Errorf("api-resources = %q, want configmaps", stdout)
	}
	cache := filepath.Join(k.Home, ".kube", "cache", "discovery")
	entries, err := os.ReadDir(cache)
	if err != nil || len(entries) == 0 {
		t.Errorf("no discovery cache in the test's HOME (%s): %v", cache, err)
	}
}
