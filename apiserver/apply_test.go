package apiserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const applyType = "application/apply-patch+yaml"

func widgetConfig(name, spec string) string {
	return `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

// TestApply creates a Widget with server-side apply, changes it, and
// applies without change.
func TestApply(t *testing.T) {
	ts := newTestServer(t)
	path := widgetsPath + "/a?fieldManager=mgr"
	steps := []struct {
		name, query, body string
		code              int
		color, ports      string
		generation        int64
		rvChanges         bool
	}{
		{"create", "", widgetConfig("a", `{"color":"red","ports":[{"name":"http","port":80}]}`), 201, "red", "http:80", 1, true},
		{"change", "", widgetConfig("a", `{"color":"blue","ports":[{"name":"http","port":80}]}`), 200, "blue", "http:80", 2, true},
		{"unchanged", "", widgetConfig("a", `{"color":"blue","ports":[{"name":"http","port":80}]}`), 200, "blue", "http:80", 2, false},
		{"YAML, unchanged", "", "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  color: blue\n  ports:\n  - name: http\n    port: 80\n", 200, "blue", "http:80", 2, false},
		{"dry run", "&dryRun=All", widgetConfig("a", `{"color":"pink"}`), 200, "pink", "", 3, false},
		{"leaving out a field removes it", "", widgetConfig("a", `{"color":"blue"}`), 200, "blue", "", 3, true},
	}
	prev := widget{}
	for _, st := range steps {
		r := do(t, ts, "PATCH", path+st.query, applyType, st.body)
		if r.code != st.code {
			t.Fatalf("%s: %d %s", st.name, r.code, r.body)
		}
		w := decodeWidget(t, r)
		if w.Spec.Color != st.color || portsOf(w) != st.ports || w.Generation != st.generation {
			t.Errorf("%s: color %q ports %q generation %d", st.name, w.Spec.Color, portsOf(w), w.Generation)
		}
		if (w.ResourceVersion != prev.ResourceVersion) != st.rvChanges {
			t.Errorf("%s: resourceVersion %s → %s", st.name, prev.ResourceVersion, w.ResourceVersion)
		}
		if diff := cmp.Diff([]string{"mgr/Apply"}, managers(w)); diff != "" {
			t.Errorf("%s: managers (-want +got):\n%s", st.name, diff)
		}
		if st.query != "" { // dry run: nothing stored
			continue
		}
		if diff := cmp.Diff(prev.ManagedFields, w.ManagedFields); !st.rvChanges && diff != "" {
			t.Errorf("%s: managedFields changed (-before +after):\n%s", st.name, diff)
		}
		got := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/a", "", ""))
		if got.ResourceVersion != w.ResourceVersion || got.Spec.Color != st.color {
			t.Errorf("%s: stored %+v", st.name, got)
		}
		prev = w
	}
	if f := fieldsOf(prev, "mgr"); f != `{"f:spec":{"f:color":{}}}` {
		t.Errorf("fields = %s", f)
	}
	// A dry-run apply creates nothing.
	r := do(t, ts, "PATCH", widgetsPath+"/b?fieldManager=mgr&dryRun=All", applyType, widgetConfig("b", `{"color":"red"}`))
	if r.code != http.StatusCreated || decodeWidget(t, r).UID == "" {
		t.Errorf("dry-run create: %d %s", r.code, r.body)
	}
	if r := do(t, ts, "GET", widgetsPath+"/b", "", ""); r.code != http.StatusNotFound {
		t.Errorf("dry-run create stored: %d", r.code)
	}
}

// Apply through /status owns status fields, recorded with subresource
// status, and changes nothing else.
func TestApplyStatus(t *testing.T) {
	ts := newTestServer(t)
	r := do(t, ts, "PATCH", widgetsPath+"/s?fieldManager=mgr", applyType,
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"s"},"spec":{"color":"red"},"status":{"readyReplicas":5}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	created := decodeWidget(t, r)
	if created.Status.ReadyReplicas != 0 || fieldsOf(created, "mgr") != `{"f:spec":{"f:color":{}}}` {
		t.Errorf("status applied through the main resource: %s", r.body)
	}
	r = do(t, ts, "PATCH", widgetsPath+"/s/status?fieldManager=ctrl", applyType,
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"s"},"spec":{"color":"blue"},"status":{"readyReplicas":2}}`)
	if r.code != http.StatusOK {
		t.Fatalf("status apply: %d %s", r.code, r.body)
	}
	w := decodeWidget(t, r)
	if w.Status.ReadyReplicas != 2 || w.Spec.Color != "red" || w.Generation != 1 {
		t.Errorf("after status apply: %s", r.body)
	}
	if diff := cmp.Diff([]string{"ctrl/Apply/status", "mgr/Apply"}, managers(w)); diff != "" {
		t.Errorf("managers (-want +got):\n%s", diff)
	}
	if f := fieldsOf(w, "ctrl"); f != `{"f:status":{"f:readyReplicas":{}}}` {
		t.Errorf("ctrl fields %s", f)
	}
}

// Every write records its manager: the fieldManager parameter, or the
// User-Agent's product.
func TestManagedFieldsOnWrites(t *testing.T) {
	ts := newTestServer(t)
	const ua = "my-client/1.2.3 (linux/amd64)"
	r := doAs(t, ts, ua, "POST", widgetsPath, "application/json", `{"metadata":{"name":"m"},"spec":{"color":"red","replicas":1}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	w := decodeWidget(t, r)
	if diff := cmp.Diff([]string{"my-client/Update"}, managers(w)); diff != "" {
		t.Errorf("create: managers (-want +got):\n%s", diff)
	}
	if f := fieldsOf(w, "my-client"); f != `{"f:spec":{".":{},"f:color":{},"f:replicas":{}}}` {
		t.Errorf("create: fields %s", f)
	}

	w.Spec.Color = "blue"
	body, _ := json.Marshal(w)
	r = doAs(t, ts, ua, "PUT", widgetsPath+"/m?fieldManager=updater", "application/json", string(body))
	w = decodeWidget(t, r)
	if r.code != http.StatusOK {
		t.Fatalf("update: %d %s", r.code, r.body)
	}
	if diff := cmp.Diff([]string{"my-client/Update", "updater/Update"}, managers(w)); diff != "" {
		t.Fatalf("update: managers (-want +got):\n%s", diff)
	}
	if f := fieldsOf(w, "updater"); f != `{"f:spec":{"f:color":{}}}` {
		t.Errorf("update: fields %s", f)
	}
	if f := fieldsOf(w, "my-client"); f != `{"f:spec":{".":{},"f:replicas":{}}}` {
		t.Errorf("update: creator fields %s", f)
	}

	r = doAs(t, ts, "kubectl/v1.35.0 (linux)", "PATCH", widgetsPath+"/m", "application/merge-patch+json", `{"spec":{"replicas":3}}`)
	w = decodeWidget(t, r)
	if diff := cmp.Diff([]string{"kubectl/Update", "my-client/Update", "updater/Update"}, managers(w)); diff != "" {
		t.Errorf("patch: managers (-want +got):\n%s", diff)
	}
	if f := fieldsOf(w, "kubectl"); f != `{"f:spec":{"f:replicas":{}}}` {
		t.Errorf("patch: fields %s", f)
	}

	// A write that changes nothing keeps the resourceVersion and the
	// managedFields, whoever writes it.
	rv, managed := w.ResourceVersion, w.ManagedFields
	r = do(t, ts, "PATCH", widgetsPath+"/m?fieldManager=other", "application/merge-patch+json", `{"spec":{"replicas":3}}`)
	w = decodeWidget(t, r)
	if w.ResourceVersion != rv {
		t.Errorf("no-op patch: rv %s → %s", rv, w.ResourceVersion)
	}
	if diff := cmp.Diff(managed, w.ManagedFields); diff != "" {
		t.Errorf("no-op patch: managedFields (-before +after):\n%s", diff)
	}
	// Nor does an update whose only change is the time of an entry.
	w.ManagedFields[0].Time.Time = w.ManagedFields[0].Time.Add(-3600e9)
	body, _ = json.Marshal(w)
	r = do(t, ts, "PUT", widgetsPath+"/m", "application/json", string(body))
	if got := decodeWidget(t, r); r.code != http.StatusOK || got.ResourceVersion != rv {
		t.Errorf("time-only update: %d %s", r.code, r.body)
	} else if diff := cmp.Diff(managed, got.ManagedFields); diff != "" {
		t.Errorf("time-only update: managedFields (-before +after):\n%s", diff)
	}

	r = do(t, ts, "PUT", widgetsPath+"/m/status?fieldManager=ctrl", "application/json",
		strings.Replace(string(body), `"status":{}`, `"status":{"readyReplicas":1}`, 1))
	w = decodeWidget(t, r)
	if f := fieldsOf(w, "ctrl"); r.code != http.StatusOK || f != `{"f:status":{"f:readyReplicas":{}}}` || managers(w)[0] != "ctrl/Update/status" {
		t.Errorf("status update: %d managers %v fields %s", r.code, managers(w), f)
	}

	r = do(t, ts, "PATCH", widgetsPath+"/m/scale?fieldManager=scaler", "application/merge-patch+json", `{"spec":{"replicas":7}}`)
	w = decodeWidget(t, do(t, ts, "GET", widgetsPath+"/m", "", ""))
	if f := fieldsOf(w, "scaler"); r.code != http.StatusOK || f != `{"f:spec":{"f:replicas":{}}}` || fieldsOf(w, "kubectl") != "" {
		t.Errorf("scale: %d managers %v fields %s", r.code, managers(w), f)
	}

	// A list of one empty entry clears managedFields.
	body, _ = json.Marshal(w)
	body = []byte(strings.Replace(string(body), `"managedFields":[`, `"managedFields":[{}],"x":[`, 1))
	r = do(t, ts, "PUT", widgetsPath+"/m?fieldValidation=Ignore", "application/json", string(body))
	if w := decodeWidget(t, r); r.code != http.StatusOK || len(w.ManagedFields) != 0 {
		t.Errorf("reset: %d %s", r.code, r.body)
	}
}

// Concurrent patches all apply: a lost race is retried with the patch
// applied to the new object.
func TestConcurrentPatches(t *testing.T) {
	ts := newTestServer(t)
	createWidget(t, ts, "c", "")
	const n = 16
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ct, body := "application/merge-patch+json", fmt.Sprintf(`{"metadata":{"labels":{"l%d":"x"}}}`, i)
			if i%2 == 1 {
				ct, body = applyType, fmt.Sprintf(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"c","labels":{"l%d":"x"}}}`, i)
			}
			codes[i] = do(t, ts, "PATCH", widgetsPath+fmt.Sprintf("/c?fieldManager=m%d", i), ct, body).code
		}(i)
	}
	wg.Wait()
	w := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/c", "", ""))
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("patch %d: %d", i, c)
		}
	}
	if len(w.Labels) != n || len(w.ManagedFields) != n+1 {
		t.Errorf("labels %v, managers %v", w.Labels, managers(w))
	}
}

// Kinds served as meta.Unstructured apply with their schema: every field
// is granular and lists are atomic.
func TestApplyUnstructured(t *testing.T) {
	ts := startWith(t, thingKind())
	cfg := `{"apiVersion":"stable.example.com/v1","kind":"Thing","metadata":{"name":"t"},"spec":{"size":3,"tags":["a"]}}`
	r := do(t, ts.Server, "PATCH", thingsPath+"/t?fieldManager=mgr", applyType, cfg)
	if r.code != http.StatusCreated || !strings.Contains(string(r.body), `"spec":{"size":3,"tags":["a"]}`) {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "PATCH", thingsPath+"/t?fieldManager=other", applyType, strings.Replace(cfg, `"size":3`, `"size":4`, 1))
	if r.code != http.StatusConflict || !strings.Contains(string(r.body), `conflict with \"mgr\": .spec.size`) {
		t.Errorf("conflict: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "PATCH", thingsPath+"/t?fieldManager=mgr", "application/merge-patch+json", `{"spec":{"size":5}}`)
	body := string(r.body)
	if r.code != http.StatusOK || !strings.Contains(body, `"manager":"mgr","operation":"Apply"`) ||
		!strings.Contains(body, `"manager":"mgr","operation":"Update"`) || !strings.Contains(body, `"size":5`) {
		t.Errorf("merge patch: %d %s", r.code, body)
	}
}
