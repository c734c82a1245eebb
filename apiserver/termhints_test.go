package apiserver

import (
	"bytes"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

func TestTermHints(t *testing.T) {
	kv := func(key, value string) *storage.KeyValue { return &storage.KeyValue{Key: key, Value: []byte(value)} }
	tests := []struct {
		name string
		run  func(h *termHints) ([]string, bool)
		want []string
	}{
		{name: "taken for the same bytes", want: []string{"a=1"}, run: func(h *termHints) ([]string, bool) {
			h.put("/k", []byte("v1"), []string{"a=1"})
			return h.take(kv("/k", "v1"))
		}},
		{name: "not for other bytes", run: func(h *termHints) ([]string, bool) {
			h.put("/k", []byte("v1"), []string{"a=1"})
			return h.take(kv("/k", "v2"))
		}},
		{name: "not for another key", run: func(h *termHints) ([]string, bool) {
			h.put("/k", []byte("v1"), []string{"a=1"})
			return h.take(kv("/j", "v1"))
		}},
		{name: "taken once", run: func(h *termHints) ([]string, bool) {
			h.put("/k", []byte("v1"), []string{"a=1"})
			h.take(kv("/k", "v1"))
			return h.take(kv("/k", "v1"))
		}},
		{name: "kept past a mismatch", want: []string{"a=1"}, run: func(h *termHints) ([]string, bool) {
			h.put("/k", []byte("v1"), []string{"a=1"})
			h.take(kv("/k", "v0"))
			return h.take(kv("/k", "v1"))
		}},
		{name: "a hint per value of a key, oldest taken first", want: []string{"a=2"}, run: func(h *termHints) ([]string, bool) {
			h.put("/k", []byte("v1"), []string{"a=1"})
			h.put("/k", []byte("v2"), []string{"a=2"})
			if got, ok := h.take(kv("/k", "v1")); !ok || got[0] != "a=1" {
				return nil, false
			}
			return h.take(kv("/k", "v2"))
		}},
		{name: "a hint per value of a key, newest taken first", want: []string{"a=1"}, run: func(h *termHints) ([]string, bool) {
			h.put("/k", []byte("v1"), []string{"a=1"})
			h.put("/k", []byte("v2"), []string{"a=2"})
			if got, ok := h.take(kv("/k", "v2")); !ok || got[0] != "a=2" {
				return nil, false
			}
			return h.take(kv("/k", "v1"))
		}},
		{name: "a value hinted twice under a newer one, both taken", want: []string{"a=2"}, run: func(h *termHints) ([]string, bool) {
			// Its own write's hint, the next write's read's, then that
			// write's: the cache takes the middle one first.
			h.put("/k", []byte("v1"), []string{"a=1"})
			h.put("/k", []byte("v1"), []string{"a=1"})
			h.put("/k", []byte("v2"), []string{"a=2"})
			for range 2 {
				if got, ok := h.take(kv("/k", "v1")); !ok || got[0] != "a=1" {
					return nil, false
				}
			}
			return h.take(kv("/k", "v2"))
		}},
		{name: "a key's older hint made way", run: func(h *termHints) ([]string, bool) {
			h.put("/k", []byte("v1"), []string{"a=1"})
			for i := range termHintSlots - 1 {
				h.put(fmt.Sprintf("/o%d", i), []byte("v"), nil)
			}
			h.put("/k", []byte("v2"), []string{"a=2"}) // in v1's slot
			return h.take(kv("/k", "v1"))
		}},
		{name: "the oldest makes way", run: func(h *termHints) ([]string, bool) {
			h.put("/k", []byte("v1"), []string{"a=1"})
			for i := range termHintSlots {
				h.put(fmt.Sprintf("/o%d", i), []byte("v"), nil)
			}
			return h.take(kv("/k", "v1"))
		}},
		{name: "the newest slots are kept", want: []string{"a=1"}, run: func(h *termHints) ([]string, bool) {
			h.put("/k", []byte("v1"), []string{"a=1"})
			for i := range termHintSlots - 1 {
				h.put(fmt.Sprintf("/o%d", i), []byte("v"), nil)
			}
			return h.take(kv("/k", "v1"))
		}},
		{name: "values over the byte budget drop the oldest", want: []string{"b=1"}, run: func(h *termHints) ([]string, bool) {
			big := func(c byte) []byte { return bytes.Repeat([]byte{c}, termHintBytes/2+1) }
			h.put("/k", []byte("v1"), []string{"a=1"})
			h.put("/a", big('a'), []string{"a=2"})
			h.put("/b", big('b'), []string{"b=1"})
			_, k := h.take(kv("/k", "v1"))
			_, a := h.take(kv("/a", string(big('a'))))
			if k || a || h.held != termHintBytes/2+1 {
				return nil, false
			}
			terms, ok := h.take(kv("/b", string(big('b'))))
			if h.held != 0 {
				return nil, false
			}
			return terms, ok
		}},
		{name: "none without hints", run: func(*termHints) ([]string, bool) {
			var h *termHints
			return h.take(kv("/k", "v1"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.run(new(termHints))
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
	r := f.s.kinds.lookup("rows.example.com", "v1", "things").r
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
		value, err := r.encode(obj)
		if err != nil {
			t.Fatal(err)
		}
		kv := &storage.KeyValue{Key: r.key("ns", "t"), Value: value, ModRevision: 7}
		stored := r.indexTerms(kv) // no hint for this value: read from it
		if got := r.objectTerms(obj); !slices.Equal(got, stored) {
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
	r := f.s.kinds.lookup("rows.example.com", "v1", "things").r
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
	r.hints.mu.Lock()
	taken, left := r.hints.taken, len(r.hints.byKey)
	r.hints.mu.Unlock()
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
		{name: "a burst", burst: termHintSlots, wantReset: true},
		{name: "a few", burst: smallHintMap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := new(termHints)
			keys := make([]string, tc.burst)
			for i := range keys {
				keys[i] = fmt.Sprintf("/registry/things/ns/thing-%06d", i)
				h.put(keys[i], []byte("v"), nil)
			}
			grown := h.byKey
			for _, k := range keys {
				if _, ok := h.take(&storage.KeyValue{Key: k, Value: []byte("v")}); !ok {
					t.Fatalf("no hint for %s", k)
				}
			}
			if reset := reflect.ValueOf(h.byKey).UnsafePointer() != reflect.ValueOf(grown).UnsafePointer(); reset != tc.wantReset {
				t.Errorf("map made anew: %v, want %v", reset, tc.wantReset)
			}
			h.put("/k", []byte("v"), []string{"a=1"})
			if terms, ok := h.take(&storage.KeyValue{Key: "/k", Value: []byte("v")}); !ok || !slices.Equal(terms, []string{"a=1"}) {
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
		{name: "the cache keeps up", lag: 1, keys: 100, maxSlots: firstHintSlots},
		{name: "a lag of 1000", lag: 1000, keys: 1000, maxSlots: 1024},
		{name: "a lag of 1000 over 10 keys", lag: 1000, keys: 10, maxSlots: 1024},
		{name: "a lag past the ring's bound", lag: termHintSlots, keys: 50, maxSlots: termHintSlots},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := new(termHints)
			const n = 10000
			key := func(i int) string { return fmt.Sprintf("/k%d", i%tc.keys) }
			for i := range n + tc.lag {
				if i < n {
					h.put(key(i), []byte(fmt.Sprint(i)), []string{fmt.Sprint("t=", i)})
				}
				if j := i - tc.lag + 1; j >= 0 && j < n {
					terms, ok := h.take(kv(key(j), j))
					if !ok || len(terms) != 1 || terms[0] != fmt.Sprint("t=", j) {
						t.Fatalf("hint %d: %q, %v", j, terms, ok)
					}
				}
			}
			if len(h.ring) > tc.maxSlots {
				t.Errorf("the ring has %d slots, want at most %d", len(h.ring), tc.maxSlots)
			}
		})
	}
}
