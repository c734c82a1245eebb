package server

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSecurityFlagErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--authorization-mode=Webhook"}, `--authorization-mode: unsupported "Webhook"`},
		{[]string{"--client-ca-file", bad}, "--client-ca-file"},
		{[]string{"--requestheader-client-ca-file", filepath.Join(dir, "missing")}, "--requestheader-client-ca-file"},
		{[]string{"--token-auth-file", bad}, "--token-auth-file: " + bad + ": line 1: want at least 3 columns"},
		{[]string{"--audit-log-path", filepath.Join(dir, "a.log"), "--audit-policy-file", bad}, "--audit-policy-file"},
	} {
		args := append(tc.args, "--addr", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "kc"))
		err := Run(context.Background(), args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestRBACKubeconfig: in RBAC mode the server serves TLS and the
// kubeconfig it writes carries the administrator's client certificate.
func TestRBACKubeconfig(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "kc")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"--authorization-mode=RBAC", "--addr", "127.0.0.1:0", "--kubeconfig", kc}, io.Discard, io.Discard)
	}()
	var b []byte
	for i := 0; i < 500 && len(b) == 0; i++ {
		b, _ = os.ReadFile(kc)
		if len(b) == 0 {
			select {
			case err := <-done:
				t.Fatalf("Run: %v", err)
			default:
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`server: "https://127.0.0.1:`, "client-certificate-data: ", "client-key-data: ", "insecure-skip-tls-verify: true"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("kubeconfig lacks %q:\n%s", want, b)
		}
	}
}
