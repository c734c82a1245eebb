package apiserver

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/kapi-dev/kapi/meta"
)

// indexedThing is an object of the index tests' model: what its labels
// and selectable fields are.
type indexedThing struct {
	ns, name string
	labels   map[string]string
	note     string
	enabled  bool
}

func (x indexedThing) field(f string) (string, bool) {
	switch f {
	case "metadata.name":
		return x.name, true
	case "metadata.namespace":
		return x.ns, true
	case "spec.note":
		return x.note, true
	case "spec.enabled":
		return strconv.FormatBool(x.enabled), true
	}
	return "", false
}

// indexFixture is a server of Things whose spec.note and spec.enabled are
// selectable, and the model of what it holds at each revision read.
type indexFixture struct {
	t     *testing.T
	s     *server
	rng   *rand.Rand
	live  map[string]indexedThing   // by ns/name
	past  map[string][]indexedThing // by list resourceVersion, in key order
	order []string                  // the revisions of past, oldest first
}

func newIndexFixture(t *testing.T) *indexFixture {
	s := newServer(Options{})
	s.kinds.Register(Kind{Group: "rows.example.com", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
		New: func() meta.Object { return &rowThing{} },
		SelectableFields: map[string]func(meta.Object) string{
			"spec.note":    func(o meta.Object) string { return o.(*rowThing).Spec.Note },
			"spec.enabled": func(o meta.Object) string { return strconv.FormatBool(o.(*rowThing).Spec.Enabled) },
		}})
	if err := s.kinds.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.kinds.lookup("rows.example.com", "v1", "things").Resource.Cache.Stop)
	return &indexFixture{t: t, s: s, rng: rand.New(rand.NewPCG(5, 6)),
		live: map[string]indexedThing{}, past: map[string][]indexedThing{}}
}

const thingsPath = "/apis/rows.example.com/v1/"

// write creates, updates (labels and fields) or deletes a random Thing.
func (f *indexFixture) write() {
	x := indexedThing{ns: []string{"ns-a", "ns-b"}[f.rng.IntN(2)], name: fmt.Sprintf("t%02d", f.rng.IntN(20)),
		labels: map[string]string{}, note: []string{"red", "blue", ""}[f.rng.IntN(3)], enabled: f.rng.IntN(2) == 0}
	for _, k := range []string{"a", "b"} {
		if v := []string{"", "1", "2"}[f.rng.IntN(3)]; v != "" {
			x.labels[k] = v
		}
	}
	id := x.ns + "/" + x.name
	coll := thingsPath + "namespaces/" + x.ns + "/things"
	_, exists := f.live[id]
	if exists && f.rng.IntN(4) == 0 {
		f.expect(http.StatusOK, "DELETE", coll+"/"+x.name, "")
		delete(f.live, id)
		return
	}
	md, _ := json.Marshal(map[string]any{"name": x.name, "labels": x.labels})
	sp, _ := json.Marshal(map[string]any{"note": x.note, "enabled": x.enabled})
	body := `{"apiVersion":"rows.example.com/v1","kind":"Thing","metadata":` + string(md) + `,"spec":` + string(sp) + `}`
	if exists {
		f.expect(http.StatusOK, "PUT", coll+"/"+x.name, body)
	} else {
		f.expect(http.StatusCreated, "POST", coll, body)
	}
	f.live[id] = x
}

func (f *indexFixture) expect(code int, method, path, body string) []byte {
	f.t.Helper()
	rec := serve(f.s, method, path, "application/json", body)
	if rec.Code != code {
		f.t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// remember records the model at the server's current revision.
func (f *indexFixture) remember() {
	var l struct {
		Metadata struct{ ResourceVersion string }
	}
	if err := json.Unmarshal(f.expect(http.StatusOK, "GET", thingsPath+"things", ""), &l); err != nil {
		f.t.Fatal(err)
	}
	ids := make([]string, 0, len(f.live))
	for id := range f.live {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	all := make([]indexedThing, len(ids))
	for i, id := range ids {
		all[i] = f.live[id]
	}
	f.past[l.Metadata.ResourceVersion] = all
	f.order = append(f.order, l.Metadata.ResourceVersion)
}

// want returns the ns/names at rv a scan of the model selects.
func (f *indexFixture) want(rv, ns string, ls meta.LabelSelector, fs meta.FieldSelector) []string {
	var out []string
	for _, x := range f.past[rv] {
		if (ns == "" || x.ns == ns) && ls.Matches(x.labels) && fs.Matches(x.field) {
			out = append(out, x.ns+"/"+x.name)
		}
	}
	return out
}

// list lists in pages of limit (0: one page) at rv, exactly unless rv is
// the latest, following continue tokens, and returns the ns/names.
func (f *indexFixture) list(rv, ns, labelSel, fieldSel string, limit int) []string {
	path := thingsPath + "things"
	if ns != "" {
		path = thingsPath + "namespaces/" + ns + "/things"
	}
	q := url.Values{"labelSelector": {labelSel}, "fieldSelector": {fieldSel}}
	if rv != f.order[len(f.order)-1] {
		q.Set("resourceVersion", rv)
		q.Set("resourceVersionMatch", "Exact")
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out []string
	for {
		var l struct {
			Metadata struct{ ResourceVersion, Continue string }
			Items    []struct {
				Metadata struct{ Namespace, Name string }
			}
		}
		if err := json.Unmarshal(f.expect(http.StatusOK, "GET", path+"?"+q.Encode(), ""), &l); err != nil {
			f.t.Fatal(err)
		}
		if l.Metadata.ResourceVersion != rv {
			f.t.Fatalf("%s: listed at %s, want %s", q.Encode(), l.Metadata.ResourceVersion, rv)
		}
		if limit > 0 && len(l.Items) > limit {
			f.t.Fatalf("%s: %d items", q.Encode(), len(l.Items))
		}
		for _, it := range l.Items {
			out = append(out, it.Metadata.Namespace+"/"+it.Metadata.Name)
		}
		if l.Metadata.Continue == "" {
			return out
		}
		q = url.Values{"labelSelector": {labelSel}, "fieldSelector": {fieldSel}, "limit": {strconv.Itoa(limit)},
			"continue": {l.Metadata.Continue}}
	}
}

// TestIndexedListsMatchModel checks, over random sequences of creates,
// updates that change labels and selectable fields, and deletes, that
// lists with label and field selectors (served through the label and
// field index, the key range of metadata.name and metadata.namespace, or
// a scan) return exactly what a scan of the model returns: at the
// current revision and at past ones (Exact, after later writes), whole
// and in pages of 2 followed through their continue tokens, in one
// namespace and in all.
func TestIndexedListsMatchModel(t *testing.T) {
	f := newIndexFixture(t)
	labelSels := []string{"", "a=1", "a in (1,2)", "a=1,b=2", "b!=1", "!a"}
	fieldSels := []string{"", "spec.note=red", "spec.note==blue", "spec.note!=red", "spec.note=",
		"spec.enabled=true,spec.note=red", "spec.enabled!=true", "metadata.name=t03", "metadata.namespace=ns-b",
		"metadata.name=t05,metadata.namespace=ns-a", "metadata.name=t05,spec.note=blue", "metadata.name=", "metadata.namespace=ns-a,spec.note=red"}
	for range 5 {
		for range 40 {
			f.write()
		}
		f.remember()
	}
	latest := f.order[len(f.order)-1]
	for _, rv := range []string{f.order[0], f.order[2], latest} {
		for _, ns := range []string{"", "ns-a"} {
			for _, lsText := range labelSels {
				for _, fsText := range fieldSels {
					ls, _ := meta.ParseLabelSelector(lsText)
					fs, _ := meta.ParseFieldSelector(fsText)
					want := f.want(rv, ns, ls, fs)
					for _, limit := range []int{0, 2} {
						if got := f.list(rv, ns, lsText, fsText, limit); !slices.Equal(got, want) {
							t.Errorf("at %s in %q, labels %q, fields %q, limit %d: got %v, want %v",
								rv, ns, lsText, fsText, limit, got, want)
						}
					}
				}
			}
		}
	}
}
