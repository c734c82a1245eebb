package apiserver

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

// spliceOf is maySplice by its definition: some split of pre starts and
// ends value.
func spliceOf(pre, value []byte) bool {
	if len(value) < len(pre) {
		return false
	}
	for k := 0; k <= len(pre); k++ {
		if bytes.HasPrefix(value, pre[:k]) && bytes.HasSuffix(value, pre[k:]) {
			return true
		}
	}
	return false
}

func TestMaySplice(t *testing.T) {
	long := bytes.Repeat([]byte("abcdefgh"), 40)
	spliced := append(append(append([]byte(nil), long[:150]...), "INSERTED"...), long[150:]...)
	changed := bytes.Clone(spliced)
	changed[200] = 'X'
	for _, tc := range []struct {
		name       string
		pre, value []byte
		want       bool
	}{
		{"equal", long, long, true},
		{"spliced", long, spliced, true},
		{"spliced at the start", []byte("ab"), []byte("xab"), true},
		{"spliced at the end", []byte("ab"), []byte("abx"), true},
		{"changed after the splice", long, changed, false},
		{"changed before the splice", long, append([]byte("X"), spliced[1:]...), false},
		{"shorter", long, long[1:], false},
		{"empty", nil, []byte("x"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := maySplice(tc.pre, tc.value); got != tc.want || got != spliceOf(tc.pre, tc.value) {
				t.Errorf("maySplice = %v, want %v", got, tc.want)
			}
		})
	}
	r := rand.New(rand.NewPCG(20, 5))
	for range 2000 {
		pre := make([]byte, r.IntN(300))
		for i := range pre {
			pre[i] = "ab"[r.IntN(2)]
		}
		k := r.IntN(len(pre) + 1)
		value := append(append(append([]byte(nil), pre[:k]...), bytes.Repeat([]byte("a"), r.IntN(3))...), pre[k:]...)
		if r.IntN(2) == 0 && len(value) > 0 {
			value[r.IntN(len(value))] ^= 3
		}
		if got, want := maySplice(pre, value), spliceOf(pre, value); got != want {
			t.Fatalf("maySplice(%q, %q) = %v, want %v", pre, value, got, want)
		}
	}
}

// TestKeepManagedFieldsTimesChanged checks that an update that changed
// more than the entries' times keeps its times and is told apart from
// the stored value without encoding it, and that one that changed only
// them is still reverted to the stored value.
func TestKeepManagedFieldsTimesChanged(t *testing.T) {
	r := spliceResource(func() meta.Object { return &spliced{} })
	old := &spliced{}
	if err := json.Unmarshal([]byte(splicedBody), old); err != nil {
		t.Fatal(err)
	}
	stored, err := r.encode(old)
	if err != nil {
		t.Fatal(err)
	}
	cur := &storage.KeyValue{Value: stored}
	later := meta.NewTime(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	for _, tc := range []struct {
		name string
		note string
		kept bool
	}{
		{"only the times", old.Spec.Note, true},
		{"the spec too", "changed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &spliced{}
			if err := json.Unmarshal([]byte(splicedBody), obj); err != nil {
				t.Fatal(err)
			}
			obj.Spec.Note = tc.note
			obj.ManagedFields[0].Time = &later
			pre, err := r.encodeWithoutManagedFields(obj)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.keepManagedFieldsTimes(obj, old, cur, pre); got != tc.kept {
				t.Fatalf("keepManagedFieldsTimes = %v, want %v", got, tc.kept)
			}
			if kept := sameTime(obj.ManagedFields[0].Time, old.ManagedFields[0].Time); kept != tc.kept {
				t.Errorf("entry time %v, stored %v: kept %v, want %v", obj.ManagedFields[0].Time, old.ManagedFields[0].Time, kept, tc.kept)
			}
			if tc.kept {
				return
			}
			if n := testing.AllocsPerRun(20, func() { r.keepManagedFieldsTimes(obj, old, cur, pre) }); n != 0 {
				t.Errorf("telling a changed object from the stored value allocated %v times", n)
			}
		})
	}
}
