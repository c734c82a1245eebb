package registry

import (
	"testing"

	"github.com/kapi-dev/kapi/storage"
)

// TestSpliceMemo: the memo answers what spliceAt answers, keeps the
// answer for the KeyValue it was made for, and does not give it to
// another value of the same slot.
func TestSpliceMemo(t *testing.T) {
	r := &Resource{}
	marked := []byte(`{"metadata":{"name":"a","resourceVersion":"\u0000"}}`)
	plain := []byte(`{"metadata":{"name":"a"}}`)
	a := &storage.KeyValue{Key: "/a", Value: marked, ModRevision: 3}
	b := &storage.KeyValue{Key: "/b", Value: plain, ModRevision: 3 + 64} // a's slot
	c := &storage.KeyValue{Key: "/a", Value: marked, ModRevision: 3}     // a's bytes, another value

	var m SpliceMemo
	for _, tc := range []struct {
		name string
		kv   *storage.KeyValue
	}{
		{"first", a}, {"again", a}, {"same slot", b}, {"back", a}, {"equal bytes", c},
	} {
		want := r.SpliceAt(tc.kv)
		if got := m.At(r, tc.kv); got != want {
			t.Errorf("%s: at = %d, want %d", tc.name, got, want)
		}
		if p := m.Slots[3].Load(); p == nil || p.KV != tc.kv {
			t.Errorf("%s: the slot does not hold the value asked for", tc.name)
		}
	}
	if r.SpliceAt(a) < 0 || r.SpliceAt(b) >= 0 {
		t.Fatal("the values do not differ in where they splice")
	}

	// A memo made for a is what a later call for a reads.
	m.Slots[3].Store(&SplicePos{KV: a, At: 7})
	if got := m.At(r, a); got != 7 {
		t.Errorf("at = %d, not the memo's 7", got)
	}
}
