package server

import (
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestTracingConfigFile: --tracing-config-file reads kube-apiserver's
// TracingConfiguration with its defaults and checks, and the server's
// tracer samples at its rate.
func TestTracingConfigFile(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		endpoint   string
		rate       int32
		err        string
	}{
		{name: "v1, every request", file: "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: collector:4317\nsamplingRatePerMillion: 1000000\n",
			endpoint: "collector:4317", rate: 1_000_000},
		{name: "v1beta1, defaults", file: "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\n",
			endpoint: "localhost:4317"},
		{name: "v1alpha1, a rate", file: "apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: TracingConfiguration\nsamplingRatePerMillion: 100\n",
			endpoint: "localhost:4317", rate: 100},
		{name: "rate above a million", file: "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 1000001\n",
			err: "not greater than 1 million"},
		{name: "negative rate", file: "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: -1\n",
			err: "must be positive"},
		{name: "another kind", file: "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n",
			err: "is not an apiserver.config.k8s.io TracingConfiguration"},
		{name: "another group", file: "apiVersion: v1\nkind: TracingConfiguration\n",
			err: "is not an apiserver.config.k8s.io TracingConfiguration"},
		{name: "unknown field", file: "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRate: 5\n",
			err: "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tracing.yaml")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := parseFlags([]string{"--tracing-config-file", path}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if f.cfg.Ops.TracingConfigFile != path {
				t.Fatalf("--tracing-config-file: %q", f.cfg.Ops.TracingConfigFile)
			}
			endpoint, rate, err := loadTracingConfig(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || endpoint != tc.endpoint || rate != tc.rate {
				t.Fatalf("got %q %d %v, want %q %d", endpoint, rate, err, tc.endpoint, tc.rate)
			}
			// The server's tracer samples a request without a traceparent
			// at the file's rate: none or all of them (100 per million
			// would be a draw).
			if tc.rate != 0 && tc.rate != 1_000_000 {
				return
			}
			ops := f.cfg.Ops
			ops.TracerProvider = sdktrace.NewTracerProvider()
			in, err := openInstruments(ops)
			if err != nil {
				t.Fatal(err)
			}
			defer in.close()
			_, sp := in.tracer.StartRequest(httptest.NewRequest("GET", "/api", nil), "GET")
			if traced := sp != nil; traced != (tc.rate == 1_000_000) {
				t.Errorf("a request without traceparent traced: %v at %d per million", traced, tc.rate)
			}
			if sp != nil {
				sp.End(nil)
			}
		})
	}
	if _, err := openInstruments(Operations{TracingConfigFile: filepath.Join(t.TempDir(), "missing.yaml")}); err == nil {
		t.Error("a missing tracing config file was accepted")
	}
}
