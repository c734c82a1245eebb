// Package e2e drives the Widget example server with real Kubernetes
// clients: client-go (discovery, RESTMapper, dynamic client) and kubectl
// built from the k8s.io/kubectl module.
package e2e

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// startServer runs the Widget server in-process on a loopback port.
func startServer(t testing.TB) *httptest.Server {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("KAPI_E2E_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	h, err := server.NewHandler(server.Config{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}
