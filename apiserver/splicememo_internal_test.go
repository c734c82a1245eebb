package apiserver

import (
	"testing"

	"github.com/kapi-dev/kapi/storage"
)

// TestSpliceMemo: the memo answers what spliceAt answers, keeps the
// answer for the KeyValue it was made for, and does not give it to
// another value of the same slot.
func TestSpliceMemo(t *testing.T) {
	r := &resource{}
	marked := []byte(`{"metadata":{"name":"a","resourceVersion":"\u0000"}}`)
	plain := []byte(`{"metadata":{"name":"a"}}`)
	a := &storage.KeyValue{Key: "/a", Value: marked, ModRevision: 3}
	b := &storage.KeyValue{Key: "/b", Value: plain, ModRevision: 3 + 64} // a's slot
	c := &storage.KeyValue{Key: "/a", Value: marked, ModRevision: 3}     // a's bytes, another value

	var m spliceMemo
	for _, tc := range []struct {
		name string
		kv   *storage.KeyValue
	}{
		{"first", a}, {"again", a}, {"same slot", b}, {"back", a}, {"equal bytes", c},
	} {
		want := r.spliceAt(tc.kv)
		if got := m.at(r, tc.kv); got != want {
			t.Errorf("%s: at = %d, want %d", tc.name, got, want)
		}
		if p := m.slots[3].Load(); p == nil || p.kv != tc.kv {
			t.Errorf("%s: the slot does not hold the value asked for", tc.name)
		}
	}
	if r.spliceAt(a) < 0 || r.spliceAt(b) >= 0 {
		t.Fatal("the values do not differ in where they splice")
	}

	// A memo made for a is what a later call for a reads.
	m.slots[3].Store(&splicePos{kv: a, at: 7})
	if got := m.at(r, a); got != 7 {
		t.Errorf("at = %d, not the memo's 7", got)
	}
}
