package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestVersionsApply applies in one version, then in the other: the
// managers record the version they applied in, and a field set through
// one version conflicts with an apply of it through the other, as
// kube-apiserver converts the objects to each manager's version.
func TestVersionsApply(t *testing.T) {
	_, ts := startVersions(t, nil, twoVersionKind("v1"))
	const apply = "application/apply-patch+yaml"
	steps := []struct {
		name, path, body string
		code             int
		conflict         string // a substring of the conflict message
	}{
		{"apply in v1", v1Path + "/a?fieldManager=alpha",
			`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"replicas":2,"color":"red"}}`, 201, ""},
		{"apply count in v1beta1", v1beta1Path + "/a?fieldManager=beta",
			`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"count":3}}`, 409,
			`conflict with "alpha": .spec.replicas`},
		{"apply another field in v1beta1", v1beta1Path + "/a?fieldManager=beta",
			`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"tags":["x"]}}`, 200, ""},
		{"apply the same value in v1beta1 shares it", v1beta1Path + "/a?fieldManager=gamma",
			`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"color":"red"}}`, 200, ""},
		{"forced apply of count in v1beta1", v1beta1Path + "/a?fieldManager=beta&force=true",
			`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"count":4,"tags":["x"]}}`, 200, ""},
		{"apply of replicas in v1 conflicts with beta's count", v1Path + "/a?fieldManager=alpha",
			`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"replicas":5,"color":"red"}}`, 409,
			`conflict with "beta": .spec.count`},
	}
	for _, st := range steps {
		r := do(t, ts, "PATCH", st.path, apply, st.body)
		if r.code != st.code {
			t.Fatalf("%s: %d %s", st.name, r.code, r.body)
		}
		if st.conflict != "" && !strings.Contains(decodeStatus(t, r).Message, st.conflict) {
			t.Errorf("%s: %s, want a message containing %q", st.name, r.body, st.conflict)
		}
	}
	w := decodeWidget(t, do(t, ts, "GET", v1Path+"/a", "", ""))
	got := map[string]string{}
	for _, e := range w.ManagedFields {
		got[e.Manager] = e.APIVersion + " " + string(e.FieldsV1.Raw)
	}
	want := map[string]string{
		"alpha": `stable.example.com/v1 {"f:spec":{"f:color":{}}}`,
		"beta":  `stable.example.com/v1beta1 {"f:spec":{"f:count":{},"f:tags":{"v:\"x\"":{}}}}`,
		"gamma": `stable.example.com/v1beta1 {"f:spec":{"f:color":{}}}`,
	}
	for m, s := range want {
		if got[m] != s {
			t.Errorf("manager %s: %s, want %s", m, got[m], s)
		}
	}
	if w.Spec.Replicas == nil || *w.Spec.Replicas != 4 || len(w.Spec.Tags) != 1 || w.Spec.Tags[0] != "x" {
		t.Errorf("object: %+v", w.Spec)
	}
}

// TestVersionsWatch watches in both versions at once: each watcher sees
// every change in its own version.
func TestVersionsWatch(t *testing.T) {
	_, ts := startVersions(t, nil, twoVersionKind("v1"))
	next := map[string]func() map[string]any{}
	for _, path := range []string{v1Path, v1beta1Path} {
		next[path] = openVersionWatch(t, ts.URL+path+"?watch=1&resourceVersion=0")
	}
	createWidget(t, ts, "a", `{"replicas":1}`)
	do(t, ts, "PATCH", v1beta1Path+"/a", "application/merge-patch+json", `{"spec":{"count":2}}`)
	for path, field := range map[string]string{v1Path: "replicas", v1beta1Path: "count"} {
		for i, want := range []float64{1, 2} {
			ev := next[path]()
			obj, _ := ev["object"].(map[string]any)
			spec, _ := obj["spec"].(map[string]any)
			wantAV := "stable.example.com/" + strings.Split(path, "/")[3]
			if obj["apiVersion"] != wantAV || spec[field] != want {
				t.Errorf("%s event %d: %v, want %s %s=%v", path, i, ev, wantAV, field, want)
			}
		}
	}
}

func openVersionWatch(t *testing.T, url string) func() map[string]any {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return func() map[string]any {
		t.Helper()
		select {
		case l := <-lines:
			var ev map[string]any
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("event %q: %v", l, err)
			}
			return ev
		case <-time.After(15 * time.Second):
			t.Fatal("no watch event within 15s")
			return nil
		}
	}
}
