package apiserver

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

// copyResource is a resource of the spliced kind, stored as JSON.
func copyResource() *registry.Resource {
	r := &registry.Resource{Kind: Kind{Group: "g.example.com", Version: "v1", Kind: "Spliced", New: func() meta.Object { return &spliced{} }},
		APIVersion: "g.example.com/v1", JSONCodec: codec.JSON{}}
	r.StorageVersion = r
	return r
}

// bigSpliced is a stored object of about 6 KB in many small strings, with
// note marking it apart.
func bigSpliced(note string) *spliced {
	obj := &spliced{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "ns", UID: "u", ResourceVersion: "7"}}
	obj.Spec.Note = note
	obj.Spec.Map = map[string]string{}
	for i := range 50 {
		obj.Spec.Map[fmt.Sprint("key", i)] = note + strings.Repeat("v", 100)
	}
	return obj
}

// TestDecodeCopyIsDeep: a copy made in the buffer an earlier copy was
// made in leaves the earlier one as it was.
func TestDecodeCopyIsDeep(t *testing.T) {
	r := copyResource()
	for _, tc := range []struct{ first, second string }{{"a", "b"}, {"long note", "x"}} {
		t.Run(tc.first+"/"+tc.second, func(t *testing.T) {
			first, err := r.DecodeCopy(bigSpliced(tc.first))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.DecodeCopy(bigSpliced(tc.second)); err != nil {
				t.Fatal(err)
			}
			want := bigSpliced(tc.first)
			want.TypeMeta = meta.TypeMeta{Kind: "Spliced", APIVersion: "g.example.com/v1"}
			if diff := cmp.Diff(want, first); diff != "" {
				t.Errorf("the first copy changed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeCopyReusesItsBuffer: copying makes no garbage the size of the
// stored value, whose holes would scatter the stored values kept
// alongside.
func TestDecodeCopyReusesItsBuffer(t *testing.T) {
	r := copyResource()
	if raceEnabled {
		t.Skip("with the race detector, pools drop buffers on purpose")
	}
	value, err := r.Encode(bigSpliced("a"))
	if err != nil {
		t.Fatal(err)
	}
	// Other goroutines of the process may allocate meanwhile: that only
	// adds to the copies' count, so one quiet attempt of several tells.
	// Copies that each made a buffer never pass.
	const copies, attempts = 40, 5
	var n uint64
	for range attempts {
		before := largeAllocs(len(value))
		for range copies {
			if _, err := r.DecodeCopy(bigSpliced("a")); err != nil {
				t.Fatal(err)
			}
		}
		if n = largeAllocs(len(value)) - before; n < copies/2 {
			return
		}
	}
	t.Errorf("%d copies made %d allocations of %d bytes or more, the stored value's size", copies, n, len(value))
}

// largeAllocs counts the process's allocations in size classes of size
// bytes or more, up to 32 KB (the stored values here are smaller).
func largeAllocs(size int) uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	var n uint64
	for _, c := range m.BySize {
		if int(c.Size) >= size {
			n += c.Mallocs
		}
	}
	return n
}

// TestLiveJSONHandsOverTheStoredValue: when the field manager has the
// stored object's form, a value stored as JSON goes to it as stored, not
// copied; otherwise it gets the object's JSON with its resourceVersion.
func TestLiveJSONHandsOverTheStoredValue(t *testing.T) {
	r := copyResource()
	value, err := r.Encode(bigSpliced("a"))
	if err != nil {
		t.Fatal(err)
	}
	cur := &storage.KeyValue{Key: "/k", Value: value, ModRevision: 9}
	for _, tc := range []struct {
		name      string
		formKnown bool
		same      bool // the stored bytes themselves
	}{
		{"form known", true, true},
		{"form not known", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live, err := r.LiveJSON(cur, tc.formKnown)
			if err != nil {
				t.Fatal(err)
			}
			if same := len(live) > 0 && &live[0] == &value[0]; same != tc.same {
				t.Errorf("the stored bytes themselves: %v, want %v", same, tc.same)
			}
			if !tc.same && !bytes.Contains(live, []byte(`"resourceVersion":"9"`)) {
				t.Errorf("the copy has no resourceVersion 9: %s", live)
			}
		})
	}
}
