package apiserver

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

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
	stored, err := r.Encode(old)
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
			pre, err := r.EncodeWithoutManagedFields(obj)
			if err != nil {
				t.Fatal(err)
			}
			if got := pipeline.KeepManagedFieldsTimes(r, obj, old, cur, pre); got != tc.kept {
				t.Fatalf("keepManagedFieldsTimes = %v, want %v", got, tc.kept)
			}
			if kept := pipeline.SameTime(obj.ManagedFields[0].Time, old.ManagedFields[0].Time); kept != tc.kept {
				t.Errorf("entry time %v, stored %v: kept %v, want %v", obj.ManagedFields[0].Time, old.ManagedFields[0].Time, kept, tc.kept)
			}
			if tc.kept {
				return
			}
			if n := testing.AllocsPerRun(20, func() { pipeline.KeepManagedFieldsTimes(r, obj, old, cur, pre) }); n != 0 {
				t.Errorf("telling a changed object from the stored value allocated %v times", n)
			}
		})
	}
}
