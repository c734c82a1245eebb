package server

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestOperationsFlags: kube-apiserver's flags and defaults.
func TestOperationsFlags(t *testing.T) {
	f, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f.cfg.Ops != DefaultOperations() || f.cfg.Ops.MaxRequestsInFlight != 400 || f.cfg.Ops.MaxMutatingRequestsInFlight != 200 ||
		f.cfg.Ops.RequestTimeout != time.Minute || f.cfg.Ops.MinRequestTimeout != 1800 {
		t.Errorf("defaults: %+v", f.cfg.Ops)
	}
	f, err = parseFlags([]string{"--max-requests-inflight", "7", "--max-mutating-requests-inflight", "0", "--request-timeout", "5s",
		"--min-request-timeout", "60", "--shutdown-delay-duration", "3s", "--profiling", "--tracing-endpoint", "localhost:4317"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := Operations{Metrics: true, MaxRequestsInFlight: 7, RequestTimeout: 5 * time.Second, MinRequestTimeout: 60, ShutdownDelayDuration: 3 * time.Second,
		Profiling: true, TracingEndpoint: "localhost:4317"}
	if f.cfg.Ops != want {
		t.Errorf("parsed %+v, want %+v", f.cfg.Ops, want)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMetricsOnEtcd scrapes /metrics of a server on an embedded etcd and
// parses it with Prometheus' parser: the request metrics and the etcd
// backend's request durations are there.
func TestMetricsOnEtcd(t *testing.T) {
	r := start(t, "--storage", "embedded-etcd", "--data-dir", filepath.Join(t.TempDir(), "etcd"))
	r.call(t, "POST", widgets, widget("m1", "", 1), http.StatusCreated)
	r.call(t, "GET", widgets+"/m1", "", http.StatusOK)
	resp, err := http.Get(r.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	has := func(name string, labels map[string]string) {
		t.Helper()
		for _, m := range fams[name].GetMetric() {
			if matches(m, labels) {
				return
			}
		}
		t.Errorf("no %s%v", name, labels)
	}
	has("apiserver_request_total", map[string]string{"verb": "POST", "resource": "widgets", "code": "201", "component": "apiserver"})
	has("apiserver_request_duration_seconds", map[string]string{"verb": "GET", "scope": "resource"})
	has("etcd_request_duration_seconds", map[string]string{"operation": "create", "group": "stable.example.com", "resource": "widgets"})
	has("etcd_request_duration_seconds", map[string]string{"operation": "list", "group": "stable.example.com", "resource": "widgets"})
	has("apiserver_storage_objects", map[string]string{"resource": "widgets.stable.example.com"})
	has("process_resident_memory_bytes", nil)
}

func matches(m *dto.Metric, want map[string]string) bool {
	got := map[string]string{}
	for _, l := range m.Label {
		got[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// TestProfilingOptIn: /debug/pprof/ is served only with --profiling.
func TestProfilingOptIn(t *testing.T) {
	if code, _ := get(t, start(t).base+"/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("without --profiling: %d", code)
	}
	if code, body := get(t, start(t, "--profiling").base+"/debug/pprof/goroutine?debug=1"); code != http.StatusOK || len(body) == 0 {
		t.Errorf("with --profiling: %d", code)
	}
}

// TestMinRequestTimeout: a watch that names no timeoutSeconds ends
// between --min-request-timeout and twice it, as in kube-apiserver.
func TestMinRequestTimeout(t *testing.T) {
	r := start(t, "--min-request-timeout", "1")
	began := time.Now()
	resp, err := http.Get(r.base + "/apis/stable.example.com/v1/widgets?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		ended <- err
	}()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("the watch broke: %v", err)
		}
		if took := time.Since(began); took < time.Second {
			t.Errorf("the watch ended after %v, before --min-request-timeout", took)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the watch did not end within 20s of a 1s --min-request-timeout")
	}
}

// TestGracefulStop: stopping Run (SIGTERM, SIGINT) with a shutdown delay
// turns /readyz unready while the API still answers, then stops.
func TestGracefulStop(t *testing.T) {
	r := start(t, "--shutdown-delay-duration", "1s")
	stopped := make(chan struct{})
	go func() { r.stop(); close(stopped) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, body := get(t, r.base+"/readyz?verbose")
		if code == http.StatusInternalServerError {
			if want := "[-]shutdown failed: reason withheld\n"; !strings.Contains(body, want) {
				t.Errorf("/readyz: %q", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/readyz stayed ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, _ := get(t, r.base+widgets); code != http.StatusOK {
		t.Errorf("during the delay: %d", code)
	}
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
}

// TestHTTP2MaxStreams reads the limit of streams per connection the TLS
// server announces in its first HTTP/2 SETTINGS frame: kube-apiserver's
// 100 by default, --http2-max-streams-per-connection's when given.
func TestHTTP2MaxStreams(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want uint32
	}{
		{nil, 100},
		{[]string{"--http2-max-streams-per-connection", "1000"}, 1000},
	} {
		t.Run(fmt.Sprint(tc.want), func(t *testing.T) {
			addr := freeAddr(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			args := append([]string{"--authorization-mode=RBAC", "--addr", addr, "--kubeconfig", filepath.Join(t.TempDir(), "kc")}, tc.args...)
			go func() { done <- Run(ctx, args, io.Discard, io.Discard) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Error(err)
				}
			}()
			var conn *tls.Conn
			var err error
			for i := 0; i < 500; i++ {
				if conn, err = tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}}); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
				t.Fatalf("negotiated %q, want h2", p)
			}
			got, ok, err := announcedMaxStreams(conn)
			if err != nil {
				t.Fatal(err)
			}
			if !ok || got != tc.want {
				t.Errorf("SETTINGS_MAX_CONCURRENT_STREAMS %d (announced: %v), want %d", got, ok, tc.want)
			}
		})
	}
}

// announcedMaxStreams sends an HTTP/2 client preface with empty settings
// and reads the server's first frame, which must be its SETTINGS:
// ok reports whether it holds SETTINGS_MAX_CONCURRENT_STREAMS.
func announcedMaxStreams(conn net.Conn) (streams uint32, ok bool, err error) {
	const (
		frameSettings        = 0x4
		settingMaxConcurrent = 0x3
	)
	preface := "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	if _, err := conn.Write(append([]byte(preface), 0, 0, 0, frameSettings, 0, 0, 0, 0, 0)); err != nil {
		return 0, false, err
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var head [9]byte
	if _, err := io.ReadFull(conn, head[:]); err != nil {
		return 0, false, err
	}
	n := int(head[0])<<16 | int(head[1])<<8 | int(head[2])
	if head[3] != frameSettings || n%6 != 0 {
		return 0, false, fmt.Errorf("first frame of type %d and length %d, want SETTINGS", head[3], n)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(conn, payload); err != nil {
		return 0, false, err
	}
	for i := 0; i < n; i += 6 {
		if binary.BigEndian.Uint16(payload[i:]) == settingMaxConcurrent {
			streams, ok = binary.BigEndian.Uint32(payload[i+2:]), true
		}
	}
	return streams, ok, nil
}
