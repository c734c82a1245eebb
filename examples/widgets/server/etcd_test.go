package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

const widgets = "/apis/stable.example.com/v1/namespaces/default/widgets"

// running is a server started by Run in a goroutine.
type running struct {
	base   string
	stdout *syncBuffer
	stop   func() // cancels Run and waits for it; fails the test on error
}

// start runs the server with args and waits until it answers.
func start(t *testing.T, args ...string) *running {
	t.Helper()
	addr := freeAddr(t)
	args = append(args, "--addr", addr, "--kubeconfig", filepath.Join(t.TempDir(), "kubeconfig"))
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{base: "http://" + addr, stdout: &syncBuffer{}}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, args, r.stdout, io.Discard) }()
	stopped := false
	r.stop = func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Run did not stop")
		}
	}
	t.Cleanup(r.stop)
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(r.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			return r
		}
		select {
		case err := <-done:
			t.Fatalf("Run: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not start")
		}
	}
}

// object is the part of a Widget or list the tests compare.
type object struct {
	Metadata struct {
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Items []object `json:"items"`
}

// call sends a JSON request and decodes the answer, failing unless its
// code is want.
func (r *running) call(t *testing.T, method, path, body string, want int) object {
	t.Helper()
	req, err := http.NewRequest(method, r.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, b)
	}
	var o object
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&o); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return o
}

func widget(name, rv string, replicas int) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"resourceVersion":%q},"spec":{"replicas":%d,"color":"blue"}}`, name, rv, replicas)
}

func rvNumber(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return n
}

// versions maps each listed object's name to its resourceVersion.
func versions(list object) map[string]string {
	m := make(map[string]string, len(list.Items))
	for _, o := range list.Items {
		m[o.Metadata.Name] = o.Metadata.ResourceVersion
	}
	return m
}

// TestEmbeddedEtcdRestart stops a server on an embedded etcd and starts
// it again on the same data directory: every object is there with its
// resourceVersion, the list's resourceVersion too, and new writes go on
// after them. The second server stores protobuf where the first stored
// JSON, and reads both.
func TestEmbeddedEtcdRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "etcd")
	r := start(t, "--storage", "embedded-etcd", "--data-dir", dir)
	if !regexp.MustCompile(`storage: embedded etcd in .+, clients at http://127\.0\.0\.1:\d+\)`).MatchString(r.stdout.String()) {
		t.Errorf("start-up line: %s", r.stdout.String())
	}
	for i := range 20 {
		o := r.call(t, "POST", widgets, widget(fmt.Sprintf("w%02d", i), "", 1), http.StatusCreated)
		if i%3 == 0 {
			r.call(t, "PUT", widgets+"/"+o.Metadata.Name, widget(o.Metadata.Name, o.Metadata.ResourceVersion, 2), http.StatusOK)
		}
	}
	r.call(t, "DELETE", widgets+"/w05", "", http.StatusOK)
	before := r.call(t, "GET", widgets, "", http.StatusOK)
	r.stop()

	r = start(t, "--storage", "embedded-etcd", "--data-dir", dir, "--storage-media-type", "application/vnd.kubernetes.protobuf")
	after := r.call(t, "GET", widgets, "", http.StatusOK)
	want, got := versions(before), versions(after)
	if len(want) != 19 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after the restart: %v\nbefore: %v", got, want)
	}
	// The store's revision carries on from where it was; the controllers'
	// leader election may have written its Lease since.
	if a, b := rvNumber(after.Metadata.ResourceVersion), rvNumber(before.Metadata.ResourceVersion); a < b || b == 0 {
		t.Errorf("list resourceVersion %s after the restart, %s before", after.Metadata.ResourceVersion, before.Metadata.ResourceVersion)
	}
	for name, rv := range want {
		if o := r.call(t, "GET", widgets+"/"+name, "", http.StatusOK); o.Metadata.ResourceVersion != rv {
			t.Errorf("%s: resourceVersion %s after the restart, %s before", name, o.Metadata.ResourceVersion, rv)
		}
	}
	// The old resourceVersion still guards updates.
	r.call(t, "PUT", widgets+"/w00", widget("w00", "2", 3), http.StatusConflict)
	o := r.call(t, "PUT", widgets+"/w00", widget("w00", want["w00"], 3), http.StatusOK)
	if rv(t, o) <= rv(t, before) {
		t.Errorf("a write after the restart got resourceVersion %s, not after %s", o.Metadata.ResourceVersion, before.Metadata.ResourceVersion)
	}
	if got := r.call(t, "GET", widgets+"/w00", "", http.StatusOK); got.Metadata.ResourceVersion != o.Metadata.ResourceVersion {
		t.Errorf("w00 read back at %s, written at %s", got.Metadata.ResourceVersion, o.Metadata.ResourceVersion)
	}
	if v := storedValue(t, r.stdout.String(), DefaultEtcdPrefix+"/stable.example.com/widgets/default/w00"); !bytes.HasPrefix(v, []byte("k8s\x00")) {
		t.Errorf("w00 stored as %q, want Kubernetes protobuf", v[:min(len(v), 16)])
	}
}

// storedValue reads one key from the embedded etcd whose client URL the
// server's start-up line names.
func storedValue(t *testing.T, startup, key string) []byte {
	t.Helper()
	m := regexp.MustCompile(`clients at (http://[0-9.:]+)`).FindStringSubmatch(startup)
	if m == nil {
		t.Fatalf("no client URL in %q", startup)
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{m[1]}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.Get(ctx, key)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("get %s: %v %v", key, resp, err)
	}
	return resp.Kvs[0].Value
}

// TestEtcdEndpoints runs two servers with --storage etcd on the embedded
// etcd of a third: a write through one is read through the other.
func TestEtcdEndpoints(t *testing.T) {
	owner, err := Open(Config{Storage: StorageEmbeddedEtcd, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(owner.Close) // after the servers on it stop: etcd waits for their watches
	a := start(t, "--storage", "etcd", "--etcd-endpoints", owner.EtcdURL)
	b := start(t, "--storage", "etcd", "--etcd-endpoints", " "+owner.EtcdURL+" ,")
	if !strings.Contains(a.stdout.String(), "storage: etcd at "+owner.EtcdURL) {
		t.Errorf("start-up line: %s", a.stdout.String())
	}
	created := a.call(t, "POST", widgets, widget("shared", "", 1), http.StatusCreated)
	if got := b.call(t, "GET", widgets+"/shared", "", http.StatusOK); got.Metadata.ResourceVersion != created.Metadata.ResourceVersion {
		t.Errorf("read through the other server: resourceVersion %s, want %s", got.Metadata.ResourceVersion, created.Metadata.ResourceVersion)
	}
	// All three use the default prefix.
	ts := httptest.NewServer(owner.Handler)
	defer ts.Close()
	o := (&running{base: ts.URL}).call(t, "GET", widgets, "", http.StatusOK)
	if got := versions(o); got["shared"] != created.Metadata.ResourceVersion {
		t.Errorf("the embedded etcd's own server lists %v", got)
	}
}

func rv(t *testing.T, o object) int64 {
	t.Helper()
	n, err := strconv.ParseInt(o.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", o.Metadata.ResourceVersion, err)
	}
	return n
}
