package watch

import (
	"errors"
	"sync"
	"testing"

	"github.com/kapi-dev/kapi/storage"
)

func TestEntryDerived(t *testing.T) {
	e := newEntry(&storage.KeyValue{Key: "/k", Value: []byte("v")}, nil)
	calls := 0
	compute := func(v any) func() (any, error) {
		return func() (any, error) { calls++; return v, nil }
	}
	if v, err := e.Derived("a", compute(1)); err != nil || v != 1 {
		t.Fatalf("first Derived: %v, %v", v, err)
	}
	if v, _ := e.Derived("a", compute(2)); v != 1 || calls != 1 {
		t.Errorf("second Derived of a key: %v after %d computes, want the kept 1 after 1", v, calls)
	}
	if v, _ := e.Derived("b", compute(3)); v != 3 || calls != 2 {
		t.Errorf("Derived of another key: %v after %d computes, want 3 after 2", v, calls)
	}
	boom := errors.New("boom")
	if _, err := e.Derived("c", func() (any, error) { return nil, boom }); err != boom {
		t.Errorf("failing compute: %v, want boom", err)
	}
	if v, _ := e.Derived("c", compute(4)); v != 4 {
		t.Errorf("after a failed compute: %v, want 4 (errors are not kept)", v)
	}
	if b, _ := e.Encoded("json", func() ([]byte, error) { return []byte("x"), nil }); string(b) != "x" {
		t.Errorf("Encoded beside Derived values: %q", b)
	}
	if v, _ := e.Derived("a", compute(5)); v != 1 {
		t.Errorf("a after other keys were added: %v, want 1", v)
	}
}

func TestEntryDerivedConcurrent(t *testing.T) {
	e := newEntry(&storage.KeyValue{Key: "/k"}, nil)
	keys := []string{"a", "b", "c", "d"}
	got := make([][]any, 8)
	var wg sync.WaitGroup
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, k := range keys {
				v, _ := e.Derived(k, func() (any, error) { return new(int), nil })
				got[g] = append(got[g], v)
			}
		}()
	}
	wg.Wait()
	for g := range got {
		for i := range keys {
			if got[g][i] != got[0][i] {
				t.Fatalf("goroutine %d got another value for %s than goroutine 0", g, keys[i])
			}
		}
	}
}
