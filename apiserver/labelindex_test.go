package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
)

// TestLabelIndex checks that the label terms read from stored bytes are
// the decoded object's labels, and that lists with label selectors (served
// through the index where they allow it) return exactly the objects whose
// labels match, in every storage encoding.
func TestLabelIndex(t *testing.T) {
	labels := []map[string]string{
		nil,
		{"a": "1"},
		{"a": "2", "b": "x"},
		{"a": "1", "b": "x", "c": "3"},
		{"a": "1", "b": "y", "example.com/team": "blue"},
		{"b": "x", "c": ""},
	}
	selectorsTested := []string{"a=1", "a==2", "a in (1,2),b=x", "a=1,c!=3", "b=x,a notin (2)", "c=", "example.com/team=blue", "a=9", "a", "!a"}
	for _, storage := range []string{codec.MediaTypeJSON, codec.MediaTypeCBOR} {
		t.Run(storage, func(t *testing.T) {
			s := newServer(Options{StorageMediaType: storage})
			s.kinds.Register(Kind{Group: "rows.example.com", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
				New: func() meta.Object { return &rowThing{} }})
			if err := s.kinds.Err(); err != nil {
				t.Fatal(err)
			}
			h := s.kinds.lookup("rows.example.com", "v1", "things")
			r := h.Resource
			t.Cleanup(r.Cache.Stop)
			path := "/apis/rows.example.com/v1/namespaces/ns/things"
			for i, l := range labels {
				md, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("t%d", i), "labels": l})
				rec := serve(s, "POST", path, "application/json", `{"apiVersion":"rows.example.com/v1","kind":"Thing","metadata":`+string(md)+`}`)
				if rec.Code != http.StatusCreated {
					t.Fatalf("create: %d %s", rec.Code, rec.Body)
				}
			}
			p, err := h.ListPage(context.Background(), "ns", handlers.Selectors{}, resourceVersionMostRecent())
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entries {
				obj, err := r.Decode(e.KV)
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for k, v := range obj.GetObjectMeta().Labels {
					want = append(want, k+"="+v)
				}
				sort.Strings(want)
				if got := r.LabelTerms(e.KV); !slices.Equal(got, want) {
					t.Errorf("%s: terms %q, want %q", e.KV.Key, got, want)
				}
			}
			for _, sel := range selectorsTested {
				ls, err := meta.ParseLabelSelector(sel)
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for i, l := range labels {
					if ls.Matches(l) {
						want = append(want, fmt.Sprintf("t%d", i))
					}
				}
				rec := serve(s, "GET", path+"?labelSelector="+url.QueryEscape(sel), "", "")
				var list struct {
					Items []struct {
						Metadata struct{ Name string }
					}
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != http.StatusOK {
					t.Fatalf("%s: %d %s", sel, rec.Code, rec.Body)
				}
				var got []string
				for _, it := range list.Items {
					got = append(got, it.Metadata.Name)
				}
				if !slices.Equal(got, want) {
					t.Errorf("labelSelector %s: got %v, want %v", sel, got, want)
				}
			}
		})
	}
}

func resourceVersionMostRecent() resourceversion.List {
	return resourceversion.List{Semantics: resourceversion.MostRecent}
}
