package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// versionWrite is one write of a table test of a kind in two versions,
// and what it must answer: the status code and, for a 422, the fields
// its causes name.
type versionWrite struct {
	name                      string
	method, path, ctype, body string
	code                      int
	causes                    []string
}

// check sends the write and checks its answer.
func (tc versionWrite) check(t *testing.T, url func(string) string, send func(method, path, ctype, body string) response) {
	t.Helper()
	r := send(tc.method, url(tc.path), tc.ctype, tc.body)
	if r.code != tc.code {
		t.Fatalf("%s %s: %d %s, want %d", tc.method, tc.path, r.code, r.body, tc.code)
	}
	if tc.code != http.StatusUnprocessableEntity {
		return
	}
	var st meta.Status
	if err := json.Unmarshal(r.body, &st); err != nil || st.Details == nil {
		t.Fatalf("not a Status with details: %v %s", err, r.body)
	}
	var got []string
	for _, c := range st.Details.Causes {
		got = append(got, c.Field)
	}
	sort.Strings(got)
	if diff := cmp.Diff(tc.causes, got); diff != "" {
		t.Errorf("cause fields (-want +got):\n%s\n%s", diff, r.body)
	}
}

// betaSchemaWidgetKind is the test Widget in v1 (stored) and v1beta1,
// whose schemas differ: v1beta1 bounds spec.count at 10 and
// status.readyReplicas at 5 and defaults spec.count to 3, where v1 has
// no bound or default on spec.replicas (the kind's Validate bounds it at
// 1000) nor on status.
func betaSchemaWidgetKind(t *testing.T) apiserver.Kind {
	t.Helper()
	beta, err := schema.FromType(reflect.TypeOf(widgetV1beta1{}))
	if err != nil {
		t.Fatal(err)
	}
	ten, five := 10.0, 5.0
	count := beta.Properties["spec"].Properties["count"]
	count.Maximum, count.Default = &ten, int64(3)
	beta.Properties["status"].Properties["readyReplicas"].Maximum = &five
	k := twoVersionKind("v1")
	k.Versions[1].Schema = beta
	return k
}

// TestVersionsValidateInRequestVersion writes the Widget through each of
// its versions, with every verb: each write is defaulted and validated
// with the schema of its version, and a 422 names that version's fields.
func TestVersionsValidateInRequestVersion(t *testing.T) {
	_, ts := startVersions(t, nil, betaSchemaWidgetKind(t))
	const (
		json1   = "application/json"
		merge   = "application/merge-patch+json"
		applyCT = "application/apply-patch+yaml"
	)
	beta := func(name, spec string) string {
		return `{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	v1 := func(name, spec string) string {
		return `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	betaStatus := func(ready int) string {
		return fmt.Sprintf(`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"status":{"readyReplicas":%d}}`, ready)
	}
	for _, tc := range []versionWrite{
		{"create through v1beta1 over its bound", "POST", v1beta1Path, json1, beta("x", `{"count":20}`), 422, []string{"spec.count"}},
		{"create through v1 over v1beta1's bound", "POST", v1Path, json1, v1("a", `{"replicas":20}`), 201, nil},
		{"create through v1 over the hook's bound", "POST", v1Path, json1, v1("x", `{"replicas":2000}`), 422, []string{"spec.replicas"}},
		{"update through v1beta1 over its bound", "PUT", v1beta1Path + "/a", json1, beta("a", `{"count":11}`), 422, []string{"spec.count"}},
		{"update through v1beta1 within its bound", "PUT", v1beta1Path + "/a", json1, beta("a", `{"count":9}`), 200, nil},
		{"merge patch through v1beta1 over its bound", "PATCH", v1beta1Path + "/a", merge, `{"spec":{"count":12}}`, 422, []string{"spec.count"}},
		{"apply through v1beta1 over its bound", "PATCH", v1beta1Path + "/a?fieldManager=m&force=true", applyCT, beta("a", `{"count":13}`), 422, []string{"spec.count"}},
		{"apply through v1beta1 within its bound", "PATCH", v1beta1Path + "/a?fieldManager=m&force=true", applyCT, beta("a", `{"count":4}`), 200, nil},
		{"status through v1beta1 over its bound", "PUT", v1beta1Path + "/a/status", json1, betaStatus(6), 422, []string{"status.readyReplicas"}},
		{"status patch through v1beta1 over its bound", "PATCH", v1beta1Path + "/a/status", merge, `{"status":{"readyReplicas":7}}`, 422, []string{"status.readyReplicas"}},
		{"status patch through v1 over v1beta1's bound", "PATCH", v1Path + "/a/status", merge, `{"status":{"readyReplicas":7}}`, 200, nil},
		{"merge patch through v1 over v1beta1's bound", "PATCH", v1Path + "/a", merge, `{"spec":{"replicas":12}}`, 200, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, func(p string) string { return p }, func(m, p, c, b string) response { return do(t, ts, m, p, c, b) })
		})
	}
	// Defaults are the version's: v1beta1 defaults count, v1 nothing.
	for _, tc := range []struct {
		path, body string
		want       *int32
	}{
		{v1beta1Path, beta("d1", `{}`), ptr32(3)},
		{v1Path, v1("d2", `{}`), nil},
	} {
		if r := do(t, ts, "POST", tc.path, json1, tc.body); r.code != http.StatusCreated {
			t.Fatalf("create: %d %s", r.code, r.body)
		}
		name := "d1"
		if tc.path == v1Path {
			name = "d2"
		}
		w := decodeWidget(t, do(t, ts, "GET", v1Path+"/"+name, "", ""))
		if diff := cmp.Diff(tc.want, w.Spec.Replicas); diff != "" {
			t.Errorf("%s created through %s: spec %s; replicas (-want +got):\n%s", name, tc.path, mustJSON(w.Spec), diff)
		}
	}
}

func ptr32(n int32) *int32 { return &n }

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestVersionsGeneration: the generation of a Widget written through
// v1beta1 follows its spec: a spec change bumps it once, a status write
// or a write that changes nothing does not.
func TestVersionsGeneration(t *testing.T) {
	_, ts := startVersions(t, nil, twoVersionKind("v1"))
	createWidget(t, ts, "a", `{"replicas":1,"color":"red"}`)
	for _, tc := range []struct {
		name, method, path, ctype, body string
		want                            int64
	}{
		{"spec change through v1beta1", "PATCH", v1beta1Path + "/a", "application/merge-patch+json", `{"spec":{"count":2}}`, 2},
		{"no change through v1beta1", "PATCH", v1beta1Path + "/a", "application/merge-patch+json", `{"spec":{"count":2}}`, 2},
		{"status through v1beta1", "PATCH", v1beta1Path + "/a/status", "application/merge-patch+json", `{"status":{"readyReplicas":2}}`, 2},
		{"status update through v1beta1", "PUT", v1beta1Path + "/a/status", "application/json",
			`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"count":9},"status":{"readyReplicas":3}}`, 2},
		{"spec update through v1beta1", "PUT", v1beta1Path + "/a", "application/json",
			`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"count":5,"color":"red"}}`, 3},
		{"scale through v1beta1", "PATCH", v1beta1Path + "/a/scale", "application/merge-patch+json", `{"spec":{"replicas":6}}`, 4},
	} {
		r := do(t, ts, tc.method, tc.path, tc.ctype, tc.body)
		if r.code != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.name, r.code, r.body)
		}
		if w := decodeWidget(t, do(t, ts, "GET", v1Path+"/a", "", "")); w.Generation != tc.want {
			t.Errorf("%s: generation %d, want %d", tc.name, w.Generation, tc.want)
		}
	}
}

// hookLog records which Go type and version each hook and admission
// function saw.
type hookLog struct {
	mu  sync.Mutex
	saw map[string][]string
}

func (l *hookLog) add(hook string, obj meta.Object) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.saw[hook] = append(l.saw[hook], fmt.Sprintf("%T", obj))
}

func (l *hookLog) take() map[string][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	saw := l.saw
	l.saw = map[string][]string{}
	for k, v := range saw {
		sort.Strings(v)
		saw[k] = compact(v)
	}
	return saw
}

func compact(s []string) []string {
	var out []string
	for _, x := range s {
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}

// TestVersionsHooksAndAdmission: the kind's Go hooks see objects in the
// storage version (v1, *widget) whatever the version of the request;
// admission sees them in the version of the request, which its Kind
// names.
func TestVersionsHooksAndAdmission(t *testing.T) {
	log := &hookLog{saw: map[string][]string{}}
	k := twoVersionKind("v1")
	k.PrepareForCreate = func(obj meta.Object) { log.add("PrepareForCreate", obj) }
	k.PrepareForUpdate = func(obj, old meta.Object) { log.add("PrepareForUpdate", obj); log.add("PrepareForUpdate", old) }
	k.Finalize = func(dst, src meta.Object) {
		log.add("Finalize", dst)
		log.add("Finalize", src)
		dst.GetObjectMeta().Labels = src.GetObjectMeta().Labels
	}
	k.Default = func(_ context.Context, obj meta.Object) {
		log.add("Default", obj)
		if w := obj.(*widget); w.Spec.Color == "" {
			w.Spec.Color = "grey" // a hook's default, kept through conversion
		}
	}
	validate := k.Validate
	k.Validate = func(ctx context.Context, obj, old meta.Object) status.FieldErrors {
		log.add("Validate", obj)
		log.add("Validate", old)
		return validate(ctx, obj, old)
	}
	admission := func(name string) apiserver.AdmissionFunc {
		return func(_ context.Context, a *apiserver.AdmissionRequest) error {
			log.add(name+" "+a.Kind.Version, a.Object)
			log.add(name+" "+a.Kind.Version, a.OldObject)
			return nil
		}
	}
	k.Admit = admission("Admit")
	srv := apiserver.New(apiserver.Options{
		MutatingAdmission:   []apiserver.AdmissionFunc{admission("mutating")},
		ValidatingAdmission: []apiserver.AdmissionFunc{admission("validating")},
	})
	if err := srv.Register(k).Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	v1 := "*apiserver_test.widget"
	beta := "*apiserver_test.widgetV1beta1"
	for _, tc := range []struct {
		name, method, path, ctype, body string
		want                            map[string][]string
	}{
		{"create through v1beta1", "POST", v1beta1Path, "application/json",
			`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"count":1}}`,
			map[string][]string{"PrepareForCreate": {v1}, "Default": {v1}, "Validate": {v1},
				"mutating v1beta1": {beta}, "validating v1beta1": {beta}, "Admit v1beta1": {beta}}},
		{"patch through v1beta1", "PATCH", v1beta1Path + "/a", "application/merge-patch+json", `{"spec":{"count":2}}`,
			map[string][]string{"PrepareForUpdate": {v1}, "Default": {v1}, "Validate": {v1},
				"mutating v1beta1": {beta}, "validating v1beta1": {beta}, "Admit v1beta1": {beta}}},
		{"patch through v1", "PATCH", v1Path + "/a", "application/merge-patch+json", `{"spec":{"replicas":3}}`,
			map[string][]string{"PrepareForUpdate": {v1}, "Default": {v1}, "Validate": {v1},
				"mutating v1": {v1}, "validating v1": {v1}, "Admit v1": {v1}}},
		{"finalize through v1beta1", "PUT", v1beta1Path + "/a/finalize", "application/json",
			`{"apiVersion":"stable.example.com/v1beta1","kind":"Widget","metadata":{"name":"a","labels":{"f":"y"}},"spec":{"count":3}}`,
			map[string][]string{"Finalize": {v1}, "Default": {v1}, "Validate": {v1},
				"mutating v1beta1": {beta}, "validating v1beta1": {beta}, "Admit v1beta1": {beta}}},
		{"delete through v1beta1", "DELETE", v1beta1Path + "/a", "", "",
			map[string][]string{"mutating v1beta1": {beta}, "validating v1beta1": {beta}, "Admit v1beta1": {beta}}},
	} {
		r := do(t, ts, tc.method, tc.path, tc.ctype, tc.body)
		if r.code >= 300 {
			t.Fatalf("%s: %d %s", tc.name, r.code, r.body)
		}
		if diff := cmp.Diff(tc.want, log.take()); diff != "" {
			t.Errorf("%s: hooks saw (-want +got):\n%s", tc.name, diff)
		}
		if tc.method == "POST" && !strings.Contains(string(r.body), `"color":"grey"`) {
			t.Errorf("%s: the hook's default is lost: %s", tc.name, r.body)
		}
		if tc.method == "PUT" && (!strings.Contains(string(r.body), `"labels":{"f":"y"}`) || !strings.Contains(string(r.body), `"count":3`)) {
			t.Errorf("%s: Finalize's change is lost: %s", tc.name, r.body)
		}
	}
}

// TestVersionsSelectableFields: a version with selectable fields of its
// own takes only those, read from objects in that version; the others
// take the kind's, read in the storage version.
func TestVersionsSelectableFields(t *testing.T) {
	k := twoVersionKind("v1")
	k.Versions[1].SelectableFields = map[string]func(meta.Object) string{
		"spec.count": func(obj meta.Object) string {
			w, ok := obj.(*widgetV1beta1)
			if !ok || w.Spec.Count == nil {
				return ""
			}
			return fmt.Sprint(*w.Spec.Count)
		},
	}
	_, ts := startVersions(t, nil, k)
	createWidget(t, ts, "a", `{"replicas":2,"color":"red"}`)
	createWidget(t, ts, "b", `{"replicas":3,"color":"blue"}`)
	for _, tc := range []struct {
		path, selector string
		code           int
		want           []string
	}{
		{v1beta1Path, "spec.count=3", 200, []string{"b"}},
		{v1beta1Path, "spec.count!=3", 200, []string{"a"}},
		{v1beta1Path, "spec.count=3,metadata.name=a", 200, nil},
		{v1beta1Path, "metadata.name=a", 200, []string{"a"}},
		{v1beta1Path, "spec.color=red", 400, nil},
		{v1Path, "spec.color=red", 200, []string{"a"}},
		{v1Path, "spec.count=3", 400, nil},
	} {
		r := do(t, ts, "GET", tc.path+"?fieldSelector="+tc.selector, "", "")
		if r.code != tc.code {
			t.Errorf("%s?fieldSelector=%s: %d %s, want %d", tc.path, tc.selector, r.code, r.body, tc.code)
			continue
		}
		if r.code != http.StatusOK {
			continue
		}
		var l struct {
			Items []struct {
				Metadata struct{ Name string } `json:"metadata"`
			} `json:"items"`
		}
		if err := json.Unmarshal(r.body, &l); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range l.Items {
			got = append(got, it.Metadata.Name)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s?fieldSelector=%s (-want +got):\n%s", tc.path, tc.selector, diff)
		}
	}
}
