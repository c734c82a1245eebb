package registry

import (
	"bytes"
	"hash/maphash"
	"sync"
	"unique"
	"unsafe"

	"github.com/kapi-dev/kapi/apiserver/internal/splice"
	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/storage"
)

// In a store that keeps values in memory (storage.SharedKeeper), a stored
// JSON value leaves its managedFields member out, with a placeholder in
// its place, and the member is kept as the value's shared part: one copy
// of its bytes for every value that holds the same. The member is about
// half of a small object, and it is the same for every object one client
// wrote in one second, so the objects of a burst of writes (and the
// values they replace, which the history keeps) share it.
//
// Serving such a value splices the member back in where its placeholder
// is, as the resourceVersion is spliced in; decoding it decodes a copy
// put back together (storedBytes).

// mfMarker is how the managedFields placeholder reads in a stored value.
// A user string could read the same only in labels or annotations, which
// come before managedFields in the metadata: a value where the first
// placeholder found is not the member's is stored whole (see
// shareManagedFields).
var MfMarker = []byte(`"managedFields":"\u0001"`)

// managedFieldsKey is the member shareManagedFields looks for.
var managedFieldsKey = []string{"managedFields"}

// setSharesManagedFields decides whether r keeps the managedFields of the
// values it stores apart: its store keeps shared parts, and its values
// are JSON with the resourceVersion placeholder, in one stored form.
func (r *Resource) setSharesManagedFields() {
	keeper, ok := r.Store.(storage.SharedKeeper)
	r.SharesManagedFields = ok && keeper.KeepsShared() && r.StorageCodec == nil && r.Kind.StoredAs == nil
	if r.SharesManagedFields {
		r.Managed = &ManagedInterner{Seed: maphash.MakeSeed(), Seen: make(map[uint64]unique.Handle[string])}
	}
}

// ManagedInterner picks the managedFields members a resource keeps
// apart: those it has seen lately. A member seen once stays in its value:
// kept apart it would cost an allocation of its own and the runtime's
// bookkeeping of a shared string (about 0.4 KB a Widget when every
// Widget's members differ, each written by a manager of its own). One
// seen again is likely to be seen many times more (a client writing many
// objects in one second), and is kept once for all of them.
type ManagedInterner struct {
	Seed maphash.Seed
	mu   sync.Mutex
	// Seen holds the members seen lately, by hash: the zero Handle for
	// one seen once. It is emptied when full.
	Seen map[uint64]unique.Handle[string]
}

// recentManaged is how many members a managedInterner remembers.
const recentManaged = 256

// intern returns the shared part to keep member in, and false when
// member is to stay in its value.
func (m *ManagedInterner) intern(member []byte) (unique.Handle[string], bool) {
	h := maphash.Bytes(m.Seed, member)
	m.mu.Lock()
	defer m.mu.Unlock()
	handle, ok := m.Seen[h]
	switch {
	case !ok:
		if len(m.Seen) >= recentManaged {
			clear(m.Seen)
		}
		m.Seen[h] = handle
		return handle, false
	case handle == unique.Handle[string]{}:
		// unique.Make copies the string when it keeps it: it may point
		// into the caller's buffer.
		handle = unique.Make(unsafe.String(unsafe.SliceData(member), len(member)))
		m.Seen[h] = handle
	case handle.Value() != string(member): // another member of the same hash
		return unique.Handle[string]{}, false
	}
	return handle, true
}

// ShareManagedFields splits value, a whole stored JSON value, into the
// value to store and its managedFields member as a shared part. ok is
// false when value is stored whole: r does not share, value has no
// managedFields, or they do not follow the resourceVersion placeholder
// in its metadata.
func (r *Resource) ShareManagedFields(value []byte) (stored []byte, shared unique.Handle[string], ok bool) {
	if !r.SharesManagedFields {
		return value, shared, false
	}
	at := RvMarkerIndex(value)
	ms, me, found := jsonscan.ObjectField(value, "metadata")
	if at < 0 || !found || at < ms || at >= me {
		return value, shared, false
	}
	var m [1]jsonscan.Member
	jsonscan.ObjectFields(value[ms:me], managedFieldsKey, m[:])
	k, e := ms+m[0].Key, ms+m[0].End
	if !m[0].Found() || k < at+len(RvMarker) {
		return value, shared, false
	}
	if shared, ok = r.Managed.intern(value[k:e]); !ok {
		return value, shared, false
	}
	stored = make([]byte, 0, len(value)-(e-k)+len(MfMarker))
	stored = append(stored, value[:k]...)
	stored = append(stored, MfMarker...)
	stored = append(stored, value[e:]...)
	if MfMarkerIndex(stored, at+len(RvMarker)) != k {
		return value, unique.Handle[string]{}, false
	}
	return stored, shared, true
}

// MfMarkerIndex is the index of the first managedFields placeholder in
// value at or after from, or -1; found by backslashes as rvMarkerIndex
// finds its own.
func MfMarkerIndex(value []byte, from int) int {
	return splice.MarkerIndex(value, from, MfMarker, len(`"managedFields":"`))
}

// HasShared reports whether kv keeps a part apart.
func HasShared(kv *storage.KeyValue) bool {
	return kv.Shared != unique.Handle[string]{}
}

// SplitShared cuts rest, the part of kv's value after its resourceVersion
// placeholder, at its managedFields placeholder: rest is head, then the
// member mf, then tail. A value kept whole is all head.
func SplitShared(kv *storage.KeyValue, rest []byte) (head []byte, mf string, tail []byte) {
	if !HasShared(kv) {
		return rest, "", nil
	}
	i := MfMarkerIndex(rest, 0)
	if i < 0 {
		return rest, "", nil
	}
	return rest[:i], kv.Shared.Value(), rest[i+len(MfMarker):]
}

// SharedGrowth is how much longer kv's value is served than stored, on
// top of the resourceVersion: its shared part in place of the placeholder.
func SharedGrowth(kv *storage.KeyValue) int {
	if !HasShared(kv) {
		return 0
	}
	return len(kv.Shared.Value()) - len(MfMarker)
}

// StoredBytes returns kv's value whole, as written: kv.Value itself, or
// for a value that keeps its managedFields apart, a copy with them put
// back (and the resourceVersion placeholder still in).
func StoredBytes(kv *storage.KeyValue) []byte {
	if !HasShared(kv) {
		return kv.Value
	}
	at := RvMarkerIndex(kv.Value)
	if at < 0 {
		return kv.Value
	}
	from := at + len(RvMarker)
	head, mf, tail := SplitShared(kv, kv.Value[from:])
	out := make([]byte, 0, len(kv.Value)+SharedGrowth(kv))
	out = append(out, kv.Value[:from]...)
	out = append(out, head...)
	out = append(out, mf...)
	return append(out, tail...)
}

// SameStored reports whether value, a whole stored value, is what kv
// holds, without putting kv's value together.
func SameStored(value []byte, kv *storage.KeyValue) bool {
	if !HasShared(kv) {
		return bytes.Equal(value, kv.Value)
	}
	at := RvMarkerIndex(kv.Value)
	if at < 0 || len(value) != len(kv.Value)+SharedGrowth(kv) {
		return false
	}
	i := MfMarkerIndex(kv.Value, at+len(RvMarker))
	if i < 0 {
		return false
	}
	mf := kv.Shared.Value()
	return bytes.Equal(value[:i], kv.Value[:i]) && string(value[i:i+len(mf)]) == mf &&
		bytes.Equal(value[i+len(mf):], kv.Value[i+len(MfMarker):])
}

// StringBytes is s as bytes, for writers that only read them.
func StringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
