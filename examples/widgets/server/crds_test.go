package server

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const twoCRDs = `# two definitions and a document of another kind in one file
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, kind: CronTab, shortNames: [ct]}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ignored}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: backups.ops.example.com}
spec:
  group: ops.example.com
  scope: Cluster
  names: {plural: backups, kind: Backup}
  versions:
  - {name: v1alpha1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`

// --crds loads every definition of the manifests in a directory, and the
// server serves their kinds once Open returns.
func TestOpenLoadsCRDs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crds.yaml"), []byte(twoCRDs), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a manifest"), 0o600); err != nil {
		t.Fatal(err)
	}
	fl, err := parseFlags([]string{"--crds", dir}, &syncBuffer{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Open(fl.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler)
	defer ts.Close()
	for _, path := range []string{"/apis/stable.example.com/v1/namespaces/default/crontabs", "/apis/ops.example.com/v1alpha1/backups"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
}

func TestOpenRefusesBadCRDs(t *testing.T) {
	dir := t.TempDir()
	bad := strings.Replace(twoCRDs, "scope: Cluster", "scope: Galaxy", 1)
	if err := os.WriteFile(filepath.Join(dir, "crds.yaml"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(Config{CRDs: dir})
	if err == nil || !strings.Contains(err.Error(), `spec.scope: Unsupported value: "Galaxy"`) {
		t.Fatalf("Open: %v", err)
	}
}
