package kubeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteHTTP(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kapi.kubeconfig")
	if err := Write(path, "http://127.0.0.1:8080", "default"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const want = `apiVersion: v1
kind: Config
clusters:
- name: kapi
  cluster:
    server: "http://127.0.0.1:8080"
users:
- name: kapi
  user: {}
contexts:
- name: kapi
  context:
    cluster: kapi
    user: kapi
    namespace: "default"
current-context: kapi
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".kubeconfig-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestWriteKubeconfigHTTPS(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := WriteKubeconfig(path, "https://[::1]:6443", ""); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const want = `apiVersion: v1
kind: Config
clusters:
- name: kapi
  cluster:
    server: "https://[::1]:6443"
    insecure-skip-tls-verify: true
users:
- name: kapi
  user:
    token: "kapi"
contexts:
- name: kapi
  context:
    cluster: kapi
    user: kapi
current-context: kapi
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestMarshalQuotes(t *testing.T) {
	b, err := Marshal(Config{Server: "http://h", Namespace: "a\"b\\c\n", Token: "x: #y"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`    namespace: "a\"b\\c\n"` + "\n",
		`    token: "x: #y"` + "\n",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("output lacks %q:\n%s", want, b)
		}
	}
}

func TestMarshalRejectsBadServer(t *testing.T) {
	for _, s := range []string{"", "127.0.0.1:8080", "ftp://h", "http://", "http://%zz"} {
		if _, err := Marshal(Config{Server: s}); err == nil {
			t.Errorf("Marshal(server %q) succeeded, want an error", s)
		}
	}
}
