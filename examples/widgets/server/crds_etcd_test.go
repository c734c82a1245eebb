package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Servers sharing one etcd serve the same definitions: a definition
// created through one is served by the others (each runs its own
// controller on the shared store), a definition deleted through one
// stops being served by all, and a server started later serves the
// definitions already stored.
func TestCRDsAcrossServers(t *testing.T) {
	owner, err := Open(Config{Storage: StorageEmbeddedEtcd, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(owner.Close)
	a := start(t, "--storage", "etcd", "--etcd-endpoints", owner.EtcdURL)
	b := start(t, "--storage", "etcd", "--etcd-endpoints", owner.EtcdURL)
	const crontabs = "/apis/stable.example.com/v1/namespaces/default/crontabs"
	if code := status(t, b.base+crontabs); code != http.StatusNotFound {
		t.Fatalf("before: %d", code)
	}
	crdJSON := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"crontabs.stable.example.com"},
"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"crontabs","kind":"CronTab"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"cronSpec":{"type":"string"}}}}}}}]}}`
	created := time.Now()
	resp, err := http.Post(a.base+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", strings.NewReader(crdJSON))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	waitStatus(t, b.base+crontabs, http.StatusOK)
	t.Logf("served by the other server %v after the create", time.Since(created))

	resp, err = http.Post(b.base+crontabs, "application/json", strings.NewReader(
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create through the other server: %d", resp.StatusCode)
	}
	waitStatus(t, a.base+crontabs+"/a", http.StatusOK)

	ts := httptest.NewServer(owner.Handler)
	defer ts.Close()
	waitStatus(t, ts.URL+crontabs+"/a", http.StatusOK)
	c := start(t, "--storage", "etcd", "--etcd-endpoints", owner.EtcdURL)
	waitStatus(t, c.base+crontabs+"/a", http.StatusOK)

	req, _ := http.NewRequest("DELETE", b.base+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, base := range []string{a.base, b.base, c.base, ts.URL} {
		waitStatus(t, base+crontabs, http.StatusNotFound)
	}
}

func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// waitStatus polls url until it answers code.
func waitStatus(t *testing.T, url string, code int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := status(t, url)
		if got == code {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d, want %d", url, got, code)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
