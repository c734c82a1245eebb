package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
)

func TestCreateSetsServerFields(t *testing.T) {
	ts := newTestServer(t)
	before := time.Now().Add(-time.Second)
	w := createWidget(t, ts, "a", `{"color":"red"}`)
	if w.UID == "" || w.ResourceVersion == "" || w.Generation != 1 {
		t.Errorf("uid %q rv %q generation %d", w.UID, w.ResourceVersion, w.Generation)
	}
	if w.CreationTimestamp.Before(before) || w.CreationTimestamp.After(time.Now().Add(time.Second)) {
		t.Errorf("creationTimestamp %v", w.CreationTimestamp)
	}
	if w.Kind != "Widget" || w.APIVersion != "stable.example.com/v1" || w.Namespace != "default" {
		t.Errorf("type/namespace: %+v", w.TypeMeta)
	}
	got := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/a", "", ""))
	if got.UID != w.UID || got.ResourceVersion != w.ResourceVersion || got.Spec.Color != "red" {
		t.Errorf("get = %+v, want %+v", got, w)
	}
}

func TestCreateIgnoresStatusAndClientSetFields(t *testing.T) {
	ts := newTestServer(t)
	r := do(t, ts, "POST", widgetsPath, "application/json",
		`{"metadata":{"name":"s","uid":"mine","resourceVersion":"42","generation":7},"status":{"readyReplicas":3}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("%d %s", r.code, r.body)
	}
	w := decodeWidget(t, r)
	if w.Status.ReadyReplicas != 0 || w.UID == "mine" || w.Generation != 1 || w.ResourceVersion == "42" {
		t.Errorf("client-set fields kept: %s", r.body)
	}
}

func TestGenerateName(t *testing.T) {
	ts := newTestServer(t)
	long := strings.Repeat("g", 260)
	for _, prefix := range []string{"gen-", long} {
		r := do(t, ts, "POST", widgetsPath, "application/json", `{"metadata":{"generateName":"`+prefix+`"}}`)
		if r.code != http.StatusCreated {
			t.Fatalf("%d %s", r.code, r.body)
		}
		w := decodeWidget(t, r)
		want := prefix
		if len(want) > 248 {
			want = want[:248]
		}
		if !strings.HasPrefix(w.Name, want) || len(w.Name) != len(want)+5 {
			t.Errorf("name %q (len %d) for prefix of len %d", w.Name, len(w.Name), len(prefix))
		}
		for _, c := range w.Name[len(want):] {
			if !strings.ContainsRune("bcdfghjklmnpqrstvwxz2456789", c) {
				t.Errorf("suffix of %q has %q", w.Name, c)
			}
		}
	}
}

func TestUpdate(t *testing.T) {
	ts := newTestServer(t)
	w := createWidget(t, ts, "u", `{"color":"red"}`)

	// A spec change bumps generation and resourceVersion; status is kept.
	w.Spec.Color = "blue"
	w.Status.ReadyReplicas = 9
	r := do(t, ts, "PUT", widgetsPath+"/u", "application/json", mustMarshal(t, w))
	if r.code != http.StatusOK {
		t.Fatalf("%d %s", r.code, r.body)
	}
	u := decodeWidget(t, r)
	if u.Generation != 2 || u.ResourceVersion == w.ResourceVersion || u.Spec.Color != "blue" || u.Status.ReadyReplicas != 0 {
		t.Errorf("after update: %s", r.body)
	}
	if u.UID != w.UID || !u.CreationTimestamp.Equal(w.CreationTimestamp.Time) {
		t.Errorf("server-owned fields changed: %s", r.body)
	}

	// A no-op update keeps the resourceVersion.
	r = do(t, ts, "PUT", widgetsPath+"/u", "application/json", mustMarshal(t, u))
	if n := decodeWidget(t, r); n.ResourceVersion != u.ResourceVersion || n.Generation != 2 {
		t.Errorf("no-op update changed rv %s→%s gen %d", u.ResourceVersion, n.ResourceVersion, n.Generation)
	}

	// An update without resourceVersion is unconditional.
	u.ResourceVersion = ""
	u.Labels = map[string]string{"a": "b"}
	r = do(t, ts, "PUT", widgetsPath+"/u", "application/json", mustMarshal(t, u))
	if n := decodeWidget(t, r); r.code != 200 || n.Labels["a"] != "b" || n.Generation != 2 {
		t.Errorf("unconditional update: %d %s", r.code, r.body)
	}

	// PUT to a missing name does not create.
	r = do(t, ts, "PUT", widgetsPath+"/nope", "application/json", `{"metadata":{"name":"nope"}}`)
	if r.code != http.StatusNotFound {
		t.Errorf("PUT missing: %d %s", r.code, r.body)
	}
}

func TestStatusSubresource(t *testing.T) {
	ts := newTestServer(t)
	w := createWidget(t, ts, "st", `{"color":"red"}`)
	w.Status.ReadyReplicas = 2
	w.Spec.Color = "green" // ignored by /status
	r := do(t, ts, "PUT", widgetsPath+"/st/status", "application/json", mustMarshal(t, w))
	if r.code != http.StatusOK {
		t.Fatalf("%d %s", r.code, r.body)
	}
	u := decodeWidget(t, r)
	if u.Status.ReadyReplicas != 2 || u.Spec.Color != "red" || u.Generation != 1 {
		t.Errorf("status update: %s", r.body)
	}
	r = do(t, ts, "PATCH", widgetsPath+"/st/status", "application/merge-patch+json", `{"status":{"readyReplicas":3},"spec":{"color":"pink"}}`)
	if u := decodeWidget(t, r); u.Status.ReadyReplicas != 3 || u.Spec.Color != "red" {
		t.Errorf("status patch: %s", r.body)
	}
	if g := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/st/status", "", "")); g.Status.ReadyReplicas != 3 {
		t.Errorf("get status: %+v", g)
	}
}

func TestPatch(t *testing.T) {
	ts := newTestServer(t)
	w := createWidget(t, ts, "p", `{"color":"red"}`)
	r := do(t, ts, "PATCH", widgetsPath+"/p", "application/merge-patch+json", `{"spec":{"color":"blue"}}`)
	p := decodeWidget(t, r)
	if r.code != 200 || p.Spec.Color != "blue" || p.Generation != 2 {
		t.Fatalf("merge patch: %d %s", r.code, r.body)
	}
	r = do(t, ts, "PATCH", widgetsPath+"/p", "application/json-patch+json",
		`[{"op":"test","path":"/spec/color","value":"blue"},{"op":"replace","path":"/spec/color","value":"green"}]`)
	if p := decodeWidget(t, r); r.code != 200 || p.Spec.Color != "green" {
		t.Fatalf("json patch: %d %s", r.code, r.body)
	}
	// A resourceVersion in the patch is a precondition.
	r = do(t, ts, "PATCH", widgetsPath+"/p", "application/merge-patch+json", `{"metadata":{"resourceVersion":"`+w.ResourceVersion+`"},"spec":{"color":"pink"}}`)
	if r.code != http.StatusConflict {
		t.Errorf("stale patch: %d %s", r.code, r.body)
	}
	// A no-op patch keeps the resourceVersion.
	cur := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/p", "", ""))
	r = do(t, ts, "PATCH", widgetsPath+"/p", "application/merge-patch+json", `{"spec":{"color":"green"}}`)
	if p := decodeWidget(t, r); p.ResourceVersion != cur.ResourceVersion {
		t.Errorf("no-op patch changed rv %s → %s", cur.ResourceVersion, p.ResourceVersion)
	}
	r = do(t, ts, "PATCH", widgetsPath+"/missing", "application/merge-patch+json", `{}`)
	if r.code != http.StatusNotFound {
		t.Errorf("patch missing: %d", r.code)
	}
}

func TestDelete(t *testing.T) {
	ts := newTestServer(t)
	w := createWidget(t, ts, "d", "")
	r := do(t, ts, "DELETE", widgetsPath+"/d", "", "")
	if r.code != http.StatusOK {
		t.Fatalf("%d %s", r.code, r.body)
	}
	st := decodeStatus(t, r)
	if st.Status != meta.StatusSuccess || st.Details == nil || st.Details.Name != "d" || st.Details.Kind != "widgets" || st.Details.UID != w.UID {
		t.Errorf("delete status: %s", r.body)
	}
	if r := do(t, ts, "GET", widgetsPath+"/d", "", ""); r.code != http.StatusNotFound {
		t.Errorf("after delete: %d", r.code)
	}
}

func TestDeleteWithFinalizers(t *testing.T) {
	ts := newTestServer(t)
	r := do(t, ts, "POST", widgetsPath, "application/json", `{"metadata":{"name":"f","finalizers":["example.com/hold"]}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("%d %s", r.code, r.body)
	}
	r = do(t, ts, "DELETE", widgetsPath+"/f", "", "")
	w := decodeWidget(t, r)
	if r.code != http.StatusOK || w.DeletionTimestamp == nil {
		t.Fatalf("delete with finalizer: %d %s", r.code, r.body)
	}
	if g := do(t, ts, "GET", widgetsPath+"/f", "", ""); g.code != http.StatusOK {
		t.Fatalf("object gone before its finalizer: %d", g.code)
	}
	r = do(t, ts, "PATCH", widgetsPath+"/f", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	if r.code != http.StatusOK {
		t.Fatalf("remove finalizer: %d %s", r.code, r.body)
	}
	if g := do(t, ts, "GET", widgetsPath+"/f", "", ""); g.code != http.StatusNotFound {
		t.Errorf("object kept after its last finalizer: %d %s", g.code, g.body)
	}
}

func TestDryRun(t *testing.T) {
	ts := newTestServer(t)
	r := do(t, ts, "POST", widgetsPath+"?dryRun=All", "application/json", `{"metadata":{"name":"dry"}}`)
	if r.code != http.StatusCreated || decodeWidget(t, r).Name != "dry" {
		t.Fatalf("dry-run create: %d %s", r.code, r.body)
	}
	if g := do(t, ts, "GET", widgetsPath+"/dry", "", ""); g.code != http.StatusNotFound {
		t.Errorf("dry-run create stored the object: %d", g.code)
	}
	w := createWidget(t, ts, "wet", "")
	if r := do(t, ts, "DELETE", widgetsPath+"/wet?dryRun=All", "", ""); r.code != http.StatusOK {
		t.Errorf("dry-run delete: %d", r.code)
	}
	if g := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/wet", "", "")); g.ResourceVersion != w.ResourceVersion {
		t.Errorf("dry-run delete changed the object")
	}
}

func TestClusterScoped(t *testing.T) {
	ts := newTestServer(t)
	r := do(t, ts, "POST", "/apis/stable.example.com/v1/gadgets", "application/json", `{"metadata":{"name":"g1"},"spec":{"owner":"me"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("%d %s", r.code, r.body)
	}
	if !strings.Contains(string(r.body), `"owner":"me"`) || strings.Contains(string(r.body), `"namespace"`) {
		t.Errorf("gadget: %s", r.body)
	}
	if r := do(t, ts, "GET", "/apis/stable.example.com/v1/gadgets/g1", "", ""); r.code != http.StatusOK {
		t.Errorf("get gadget: %d", r.code)
	}
}

func TestListAcrossNamespacesAndDeleteCollection(t *testing.T) {
	ts := newTestServer(t)
	for _, ns := range []string{"a", "b"} {
		for i := 0; i < 3; i++ {
			color := "red"
			if i == 0 {
				color = "blue"
			}
			r := do(t, ts, "POST", "/apis/stable.example.com/v1/namespaces/"+ns+"/widgets", "application/json",
				`{"metadata":{"name":"w`+strconv.Itoa(i)+`","labels":{"i":"`+strconv.Itoa(i)+`"}},"spec":{"color":"`+color+`"}}`)
			if r.code != http.StatusCreated {
				t.Fatalf("%d %s", r.code, r.body)
			}
		}
	}
	if n := countItems(t, do(t, ts, "GET", "/apis/stable.example.com/v1/widgets", "", "")); n != 6 {
		t.Errorf("all namespaces: %d items", n)
	}
	if n := countItems(t, do(t, ts, "GET", "/apis/stable.example.com/v1/namespaces/a/widgets", "", "")); n != 3 {
		t.Errorf("namespace a: %d items", n)
	}
	if n := countItems(t, do(t, ts, "GET", "/apis/stable.example.com/v1/widgets?labelSelector=i+in+(0,1)", "", "")); n != 4 {
		t.Errorf("label selector: %d items", n)
	}
	if n := countItems(t, do(t, ts, "GET", "/apis/stable.example.com/v1/widgets?fieldSelector=spec.color%3Dblue", "", "")); n != 2 {
		t.Errorf("field selector: %d items", n)
	}
	r := do(t, ts, "DELETE", "/apis/stable.example.com/v1/namespaces/a/widgets?labelSelector=i!%3D0", "", "")
	if r.code != http.StatusOK || countItems(t, r) != 2 {
		t.Fatalf("deletecollection: %d %s", r.code, r.body)
	}
	if n := countItems(t, do(t, ts, "GET", "/apis/stable.example.com/v1/widgets", "", "")); n != 4 {
		t.Errorf("after deletecollection: %d items", n)
	}
}

func TestListPagination(t *testing.T) {
	ts := newTestServer(t)
	for i := 0; i < 5; i++ {
		createWidget(t, ts, "w"+strconv.Itoa(i), "")
	}
	var names []string
	path := widgetsPath + "?limit=2"
	first := ""
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("too many pages")
		}
		var l struct {
			Metadata meta.ListMeta `json:"metadata"`
			Items    []widget      `json:"items"`
		}
		r := do(t, ts, "GET", path, "", "")
		if err := json.Unmarshal(r.body, &l); err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = l.Metadata.ResourceVersion
			createWidget(t, ts, "w9", "") // not seen by later pages
		} else if l.Metadata.ResourceVersion != first {
			t.Errorf("page rv %s, first page %s", l.Metadata.ResourceVersion, first)
		}
		for _, it := range l.Items {
			names = append(names, it.Name)
		}
		if l.Metadata.Continue == "" {
			if l.Metadata.RemainingItemCount != nil {
				t.Errorf("remainingItemCount on the last page")
			}
			break
		}
		if l.Metadata.RemainingItemCount == nil || *l.Metadata.RemainingItemCount != int64(5-len(names)) {
			t.Errorf("remainingItemCount = %v after %d items", l.Metadata.RemainingItemCount, len(names))
		}
		path = widgetsPath + "?limit=2&continue=" + l.Metadata.Continue
	}
	if strings.Join(names, ",") != "w0,w1,w2,w3,w4" {
		t.Errorf("pages gave %v", names)
	}
	if r := do(t, ts, "GET", widgetsPath+"?limit=2&continue=garbage", "", ""); r.code != http.StatusBadRequest {
		t.Errorf("malformed continue: %d %s", r.code, r.body)
	}
}

func TestPanicIsInternalError(t *testing.T) {
	srv := newPanickyServer(t)
	r := do(t, srv, "POST", widgetsPath, "application/json", `{"metadata":{"name":"boom"}}`)
	if r.code != http.StatusInternalServerError {
		t.Fatalf("code %d %s", r.code, r.body)
	}
	if st := decodeStatus(t, r); st.Reason != meta.StatusReasonInternalError {
		t.Errorf("reason %q", st.Reason)
	}
}

func countItems(t testing.TB, r response) int {
	t.Helper()
	var l struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(r.body, &l); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
	if l.Kind != "WidgetList" {
		t.Fatalf("kind %q: %s", l.Kind, r.body)
	}
	return len(l.Items)
}

func mustMarshal(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCreateOnUpdate(t *testing.T) {
	k := widgetKind()
	k.AllowCreateOnUpdate = true
	ts := startWith(t, k)
	r := do(t, ts.Server, "PUT", widgetsPath+"/made", "application/json", `{"metadata":{"name":"made"},"spec":{"color":"red"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("PUT to a missing name: %d %s", r.code, r.body)
	}
	w := decodeWidget(t, r)
	if w.UID == "" || w.Generation != 1 {
		t.Errorf("created by PUT: %s", r.body)
	}
	r = do(t, ts.Server, "PUT", widgetsPath+"/made", "application/json", `{"metadata":{"name":"made"},"spec":{"color":"blue"}}`)
	if r.code != http.StatusOK || decodeWidget(t, r).UID != w.UID {
		t.Errorf("second PUT: %d %s", r.code, r.body)
	}
}
