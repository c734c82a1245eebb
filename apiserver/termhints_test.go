package apiserver

import (
	"bytes"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

func TestTermHints(t *testing.T) {
	kv := func(key, value string) *storage.KeyValue { return &storage.KeyValue{Key: key, Value: []byte(value)} }
	tests := []struct {
		name string
		run  func(h *registry.TermHints) ([]string, bool)
		want []string
	}{
		{name: "taken for the same bytes", want: []string{"a=1"}, run: func(h *registry.TermHints) ([]string, bool) {
			h.Put("/k", []byte("v1"), []string{"a=1"})
			return h.Take(kv("/k", "v1"))
		}},
		{name: "not for other bytes", run: func(h *registry.TermHints) ([]string, bool) {
			h.Put("/k", []byte("v1"), []string{"a=1"})
			return h.Take(kv("/k", "v2"))
		}},
		{name: "not for another key", run: func(h *registry.TermHints) ([]string, bool) {
			h.Put("/k", []byte("v1"), []string{"a=1"})
			return h.Take(kv("/j", "v1"))
		}},
		{name: "taken once", run: func(h *registry.TermHints) ([]string, bool) {
			h.Put("/k", []byte("v1"), []string{"a=1"})
			h.Take(kv("/k", "v1"))
			return h.Take(kv("/k", "v1"))
		}},
		{name: "kept past a mismatch", want: []string{"a=1"}, run: func(h *registry.TermHints) ([]string, bool) {
			h.Put("/k", []byte("v1"), []string{"a=1"})
			h.Take(kv("/k", "v0"))
			return h.Take(kv("/k", "v1"))
		}},
		{name: "a hint per value of a key, oldest taken first", want: []string{"a=2"}, run: func(h *registry.TermHints) ([]string, bool) {
			h.Put("/k", []byte("v1"), []string{"a=1"})
			h.Put("/k", []byte("v2"), []string{"a=2"})
			if got, ok := h.Take(kv("/k", "v1")); !ok || got[0] != "a=1" {
				return nil, false
			}
			return h.Take(kv("/k", "v2"))
		}},
		{name: "a hint per value of a key, newest taken first", want: []string{"a=1"}, run: func(h *registry.TermHints) ([]string, bool) {
			h.Put("/k", []byte("v1"), []string{"a=1"})
			h.Put("/k", []byte("v2"), []string{"a=2"})
			if got, ok := h.Take(kv("/k", "v2")); !ok || got[0] != "a=2" {
				return nil, false
			}
			return h.Take(kv("/k", "v1"))
		}},
		{name: "a value hinted twice under a newer one, both taken", want: []string{"a=2"}, run: func(h *registry.TermHints) ([]string, bool) {
			// Its own write's hint, the next write's read's, then that
			// write's: the cache takes the middle one first.
			h.Put("/k", []byte("v1"), []string{"a=1"})
			h.Put("/k", []byte("v1"), []string{"a=1"})
			h.Put("/k", []byte("v2"), []string{"a=2"})
			for range 2 {
				if got, ok := h.Take(kv("/k", "v1")); !ok || got[0] != "a=1" {
					return nil, false
				}
			}
			return h.Take(kv("/k", "v2"))
		}},
		{name: "a key's older hint made way", run: func(h *registry.TermHints) ([]string, bool) {
			h.Put("/k", []byte("v1"), []string{"a=1"})
			for i := range registry.TermHintSlots - 1 {
				h.Put(fmt.Sprintf("/o%d", i), []byte("v"), nil)
			}
			h.Put("/k", []byte("v2"), []string{"a=2"}) // in v1's slot
			return h.Take(kv("/k", "v1"))
		}},
		{name: "the oldest makes way", run: func(h *registry.TermHints) ([]string, bool) {
			h.Put("/k", []byte("v1"), []string{"a=1"})
			for i := range registry.TermHintSlots {
				h.Put(fmt.Sprintf("/o%d", i), []byte("v"), nil)
			}
			return h.Take(kv("/k", "v1"))
		}},
		{name: "the newest slots are kept", want: []string{"a=1"}, run: func(h *registry.TermHints) ([]string, bool) {
			h.Put("/k", []byte("v1"), []string{"a=1"})
			for i := range registry.TermHintSlots - 1 {
				h.Put(fmt.Sprintf("/o%d", i), []byte("v"), nil)
			}
			return h.Take(kv("/k", "v1"))
		}},
		{name: "values over the byte budget drop the oldest", want: []string{"b=1"}, run: func(h *registry.TermHints) ([]string, bool) {
			big := func(c byte) []byte { return bytes.Repeat([]byte{c}, registry.TermHintBytes/2+1) }
			h.Put("/k", []byte("v1"), []string{"a=1"})
			h.Put("/a", big('a'), []string{"a=2"})
			h.Put("/b", big('b'), []string{"b=1"})
			_, k := h.Take(kv("/k", "v1"))
			_, a := h.Take(kv("/a", string(big('a'))))
			if k || a || h.Held != registry.TermHintBytes/2+1 {
				return nil, false
			}
			terms, ok := h.Take(kv("/b", string(big('b'))))
			if h.Held != 0 {
				return nil, false
			}
			return terms, ok
		}},
		{name: "none without hints", run: func(*registry.TermHints) ([]string, bool) {
			var h *registry.TermHints
			return h.Take(kv("/k", "v1"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.run(new(registry.TermHints))
			if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
				t.Errorf("got %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

// TestObjectTermsMatchStoredTerms: the terms a write leaves as a hint are
// the terms the cache reads from the stored value, escapes included.
func TestObjectTermsMatchStoredTerms(t *testing.T) {
	f := newIndexFixture(t)
	r := f.s.kinds.lookup("rows.example.com", "v1", "things").Resource
	for _, tt := range []struct {
		labels map[string]string
		spec   rowThingSpec
	}{
		{},
		{labels: map[string]string{"a": "1"}, spec: rowThingSpec{Note: "red", Enabled: true}},
		{labels: map[string]string{"example.com/b": "", "a": "x-y_z.0"}, spec: rowThingSpec{Note: `q"<&>\é☃`}},
		{labels: map[string]string{"z": "1", "y": "2", "x": "3"}, spec: rowThingSpec{Note: "\u2028\t\n"}},
	} {
		obj := &rowThing{ObjectMeta: meta.ObjectMeta{Name: "t", Namespace: "ns", Labels: tt.labels}, Spec: tt.spec}
		value, err := r.Encode(obj)
		if err != nil {
			t.Fatal(err)
		}
		kv := &storage.KeyValue{Key: r.Key("ns", "t"), Value: value, ModRevision: 7}
		stored := r.IndexTerms(kv) // no hint for this value: read from it
		if got := r.ObjectTerms(obj); !slices.Equal(got, stored) {
			t.Errorf("%+v: object terms %q, stored terms %q", tt, got, stored)
		}
	}
}

// TestWritesHintTheirTerms: every create and update leaves its terms for
// the cache, and every update the terms of the value it replaces (which
// the cache unindexes), so that the cache uses them instead of decoding
// either value; the index they make answers selective lists right.
func TestWritesHintTheirTerms(t *testing.T) {
	f := newIndexFixture(t)
	r := f.s.kinds.lookup("rows.example.com", "v1", "things").Resource
	coll := thingsPath + "namespaces/ns-a/things"
	f.expect(http.StatusOK, "GET", coll, "") // the cache has listed: it sees every write as an event
	const n = 5
	for i := range n {
		f.expect(http.StatusCreated, "POST", coll, fmt.Sprintf(`{"metadata":{"name":"t%d","labels":{"a":"1"}},"spec":{"note":"red"}}`, i))
	}
	for i := range n {
		f.expect(http.StatusOK, "PUT", fmt.Sprintf("%s/t%d", coll, i), fmt.Sprintf(`{"metadata":{"name":"t%d","labels":{"a":"%d"}},"spec":{"note":"blue"}}`, i, i%2))
	}
	f.remember() // a consistent list: the cache has every write
	got := f.list(f.order[len(f.order)-1], "ns-a", "a=1", "spec.note=blue", 0)
	if want := []string{"ns-a/t1", "ns-a/t3"}; !slices.Equal(got, want) {
		t.Errorf("a=1, spec.note=blue: got %q, want %q", got, want)
	}
	r.Hints.Mu.Lock()
	taken, left := r.Hints.Taken, len(r.Hints.ByKey)
	r.Hints.Mu.Unlock()
	if taken != 3*n || left != 0 {
		t.Errorf("hints: %d taken, %d left; want %d taken, none left", taken, left, 3*n)
	}
}

// TestTermHintsLetGoOfABurst: once the cache has taken the hints of a
// burst of writes, the map of keys the burst grew is made anew (a Go map
// keeps the room of its largest size), and hints work on as before. A
// map that never held many keys is kept.
func TestTermHintsLetGoOfABurst(t *testing.T) {
	for _, tc := range []struct {
		name      string
		burst     int
		wantReset bool
	}{
		{name: "a burst", burst: registry.TermHintSlots, wantReset: true},
		{name: "a few", burst: registry.SmallHintMap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := new(registry.TermHints)
			keys := make([]string, tc.burst)
			for i := range keys {
				keys[i] = fmt.Sprintf("/registry/things/ns/thing-%06d", i)
				h.Put(keys[i], []byte("v"), nil)
			}
			grown := h.ByKey
			for _, k := range keys {
				if _, ok := h.Take(&storage.KeyValue{Key: k, Value: []byte("v")}); !ok {
					t.Fatalf("no hint for %s", k)
				}
			}
			if reset := reflect.ValueOf(h.ByKey).UnsafePointer() != reflect.ValueOf(grown).UnsafePointer(); reset != tc.wantReset {
				t.Errorf("map made anew: %v, want %v", reset, tc.wantReset)
			}
			h.Put("/k", []byte("v"), []string{"a=1"})
			if terms, ok := h.Take(&storage.KeyValue{Key: "/k", Value: []byte("v")}); !ok || !slices.Equal(terms, []string{"a=1"}) {
				t.Errorf("after the burst: %q, %v", terms, ok)
			}
		})
	}
}

// TestTermHintsRingGrowsWithLag: the ring stays small while the cache
// takes each hint soon, and grows, keeping every hint (chains of one
// key's values included), when the cache falls behind.
func TestTermHintsRingGrowsWithLag(t *testing.T) {
	kv := func(key string, i int) *storage.KeyValue {
		return &storage.KeyValue{Key: key, Value: []byte(fmt.Sprint(i))}
	}
	for _, tc := range []struct {
		name     string
		lag      int // hints put before the first is taken
		keys     int // distinct keys the hints cycle through
		maxSlots int
	}{
		{name: "the cache keeps up", lag: 1, keys: 100, maxSlots: registry.FirstHintSlots},
		{name: "a lag of 1000", lag: 1000, keys: 1000, maxSlots: 1024},
		{name: "a lag of 1000 over 10 keys", lag: 1000, keys: 10, maxSlots: 1024},
		{name: "a lag past the ring's bound", lag: registry.TermHintSlots, keys: 50, maxSlots: registry.TermHintSlots},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := new(registry.TermHints)
			const n = 10000
			key := func(i int) string { return fmt.Sprintf("/k%d", i%tc.keys) }
			for i := range n + tc.lag {
				if i < n {
					h.Put(key(i), []byte(fmt.Sprint(i)), []string{fmt.Sprint("t=", i)})
				}
				if j := i - tc.lag + 1; j >= 0 && j < n {
					terms, ok := h.Take(kv(key(j), j))
					if !ok || len(terms) != 1 || terms[0] != fmt.Sprint("t=", j) {
						t.Fatalf("hint %d: %q, %v", j, terms, ok)
					}
				}
			}
			if len(h.Ring) > tc.maxSlots {
				t.Errorf("the ring has %d slots, want at most %d", len(h.Ring), tc.maxSlots)
			}
		})
	}
}
