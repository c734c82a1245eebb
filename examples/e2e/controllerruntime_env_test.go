package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/examples/widgets/api"
)

// crServer is a kapi server with the example kinds (and any extra ones)
// whose requests are recorded, so tests can tell what a client asked and
// what it got.
type crServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []crRequest
}

// crRequest is one request seen by a crServer and its response code.
type crRequest struct {
	method, path, accept, contentType string
	code                              int
}

func startCRServer(t testing.TB, extra ...apiserver.Kind) *crServer {
	t.Helper()
	rules, err := cel.New(cel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{Logger: testLogger(), RuleEngine: rules})
	srv.Register(api.WidgetKind()).Register(api.GadgetKind())
	for _, k := range extra {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	s := &crServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &codeRecorder{ResponseWriter: w, code: http.StatusOK}
		srv.ServeHTTP(rec, r)
		s.mu.Lock()
		s.requests = append(s.requests, crRequest{r.Method, r.URL.Path, r.Header.Get("Accept"), r.Header.Get("Content-Type"), rec.code})
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

// seen returns the requests whose method and path match.
func (s *crServer) seen(method, path string) []crRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []crRequest
	for _, r := range s.requests {
		if r.method == method && r.path == path {
			out = append(out, r)
		}
	}
	return out
}

type codeRecorder struct {
	http.ResponseWriter
	code int
}

func (c *codeRecorder) WriteHeader(code int) {
	c.code = code
	c.ResponseWriter.WriteHeader(code)
}

// Flush keeps watch streams flowing through the recorder.
func (c *codeRecorder) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func testLogger() *slog.Logger {
	if os.Getenv("KAPI_E2E_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

var setCRLogger sync.Once

// crLogger is the logger handed to controller-runtime; it also becomes the
// package-level one controller-runtime insists on having.
func crLogger() logr.Logger {
	l := logr.FromSlogHandler(testLogger().Handler())
	setCRLogger.Do(func() {
		ctrllog.SetLogger(l)
		// client-go's event broadcaster and leader election log through klog.
		klog.SetLogger(l)
	})
	return l
}

// crConfig is the rest.Config a controller-runtime user points at kapi.
func crConfig(url string) *rest.Config {
	return &rest.Config{Host: url, QPS: -1, Timeout: 30 * time.Second}
}

func newCRSchemeT(t testing.TB) *runtime.Scheme {
	t.Helper()
	s, err := newCRScheme()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newDirectClient is a client that always goes to the server.
func newDirectClient(t testing.TB, cfg *rest.Config, scheme *runtime.Scheme) client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newCRManager builds a manager with metrics and health probes off;
// adjust changes the options before the manager is built.
func newCRManager(t testing.TB, cfg *rest.Config, scheme *runtime.Scheme, adjust func(*manager.Options)) manager.Manager {
	t.Helper()
	opts := manager.Options{
		Scheme:                 scheme,
		Logger:                 crLogger(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Controller names are checked for uniqueness across the process,
		// which repeated runs (-count) of one test break.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if adjust != nil {
		adjust(&opts)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}

// runManager starts mgr and stops it when the test ends, failing the test
// if Start returns an error before that.
func runManager(t testing.TB, mgr manager.Manager) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("manager: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("manager did not stop")
		}
	})
	sync, cancelSync := context.WithTimeout(ctx, 20*time.Second)
	defer cancelSync()
	if !mgr.GetCache().WaitForCacheSync(sync) {
		t.Fatal("cache did not sync")
	}
	return ctx
}

// eventually polls cond until it holds, failing the test with cond's last
// description when the deadline passes.
func eventually(t testing.TB, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", timeout, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
