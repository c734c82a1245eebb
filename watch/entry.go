package watch

import (
	"sync/atomic"

	"github.com/kapi-dev/kapi/storage"
)

// Entry is one object as the cache holds it: the stored KeyValue, the
// decoded object (decoded once, on first use) and the object's encodings,
// one per media type, computed once and shared by every list and watch
// event that serves the object.
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
	enc    atomic.Pointer[[]encoding]
}

type decoded struct {
	v   any
	err error
}

type encoding struct {
	mediaType string
	data      []byte
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
	cur := e.enc.Load()
	if data, ok := lookup(cur, mediaType); ok {
		return data, nil
	}
	data, err := encode()
	if err != nil {
		return nil, err
	}
	for {
		var next []encoding
		if cur != nil {
			next = make([]encoding, len(*cur), len(*cur)+1)
			copy(next, *cur)
		}
		next = append(next, encoding{mediaType: mediaType, data: data})
		if e.enc.CompareAndSwap(cur, &next) {
			return data, nil
		}
		cur = e.enc.Load()
		if kept, ok := lookup(cur, mediaType); ok {
			return kept, nil
		}
	}
}

func lookup(encs *[]encoding, mediaType string) ([]byte, bool) {
	if encs == nil {
		return nil, false
	}
	for _, x := range *encs {
		if x.mediaType == mediaType {
			return x.data, true
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
