package watch

import (
	"sync/atomic"

	"github.com/kapi-dev/kapi/storage"
)

// Entry is one object as the cache holds it: the stored KeyValue, the
// decoded object (decoded once, on first use) and the object's encodings,
// one per media type, and other values derived from it (such as table
// cells), computed once and shared by every list and watch event that
// serves the object.
//
// An Entry never changes once a reader can see it, apart from filling its
// decoding and encoding caches, which is safe for concurrent use. Entries
// are shared: callers must not modify the KeyValue, its Value, the decoded
// object or the encoded bytes. A new revision of an object is a new Entry.
type Entry struct {
	// KV is the stored object. For the Entry of a Deleted event it is the
	// object's last value with ModRevision set to the revision of the
	// deletion.
	KV *storage.KeyValue

	decode func(*storage.KeyValue) (any, error)
	obj    atomic.Pointer[decoded]
	enc    atomic.Pointer[[]derived]
}

type decoded struct {
	v   any
	err error
}

// derived is one value kept by Entry.Derived: an encoding or anything
// else computed from the object.
type derived struct {
	key string
	v   any
}

func newEntry(kv *storage.KeyValue, decode func(*storage.KeyValue) (any, error)) *Entry {
	return &Entry{KV: kv, decode: decode}
}

// Object returns the decoded object, calling [Options.Decode] the first
// time and returning the same result (object or error) afterwards. It
// returns nil, nil when the cache has no Decode. Concurrent first calls may
// each decode, but all of them return the object that was kept.
func (e *Entry) Object() (any, error) {
	if d := e.obj.Load(); d != nil {
		return d.v, d.err
	}
	if e.decode == nil {
		return nil, nil
	}
	v, err := e.decode(e.KV)
	d := &decoded{v: v, err: err}
	if !e.obj.CompareAndSwap(nil, d) {
		d = e.obj.Load()
	}
	return d.v, d.err
}

// Encoded returns the object's encoding for mediaType, calling encode the
// first time and returning the same bytes to every later call with that
// media type. Concurrent first calls may each encode, but all of them
// return the bytes that were kept. An encode error is returned and not
// kept. mediaType is an opaque key: use one per distinct byte form (for
// example "application/json" and "application/vnd.kubernetes.protobuf").
// The returned bytes are shared and must not be modified.
func (e *Entry) Encoded(mediaType string, encode func() ([]byte, error)) ([]byte, error) {
	v, err := e.Derived(mediaType, func() (any, error) { return encode() })
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

// Derived returns a value computed from the entry's object (an encoding,
// the cells of a table row), calling compute the first time key is asked
// for and returning the same value to every later call with that key, so
// that it is computed once per object version. Concurrent first calls may
// each compute, but all of them return the value that was kept. An error
// is returned and not kept. Keys share one space with [Entry.Encoded]'s
// media types: prefix them with the caller's package. The value is shared
// and must not be modified.
func (e *Entry) Derived(key string, compute func() (any, error)) (any, error) {
	cur := e.enc.Load()
	if v, ok := lookup(cur, key); ok {
		return v, nil
	}
	v, err := compute()
	if err != nil {
		return nil, err
	}
	for {
		var next []derived
		if cur != nil {
			next = make([]derived, len(*cur), len(*cur)+1)
			copy(next, *cur)
		}
		next = append(next, derived{key: key, v: v})
		if e.enc.CompareAndSwap(cur, &next) {
			return v, nil
		}
		cur = e.enc.Load()
		if kept, ok := lookup(cur, key); ok {
			return kept, nil
		}
	}
}

// Kept returns the value kept under key by [Entry.Derived] or
// [Entry.Encoded], without computing it; false when there is none yet.
func (e *Entry) Kept(key string) (any, bool) { return lookup(e.enc.Load(), key) }

func lookup(vals *[]derived, key string) (any, bool) {
	if vals == nil {
		return nil, false
	}
	for _, x := range *vals {
		if x.key == key {
			return x.v, true
		}
	}
	return nil, false
}

// stamped returns an Entry for e's object as of a later revision rev at
// which it was deleted (or stopped matching a watcher's filter): e's value
// with ModRevision rev, so that the decoded object carries rev as its
// resourceVersion, as kube-apiserver sends it.
func (e *Entry) stamped(rev int64) *Entry {
	kv := *e.KV
	kv.ModRevision = rev
	return newEntry(&kv, e.decode)
}
