package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// Create stores a new object. It returns the stored value, or nil when
// an object of that name is already stored. pre is obj's encoding
// without managedFields, or nil, and hints what the write knows of it
// (see storedValue).
func (r *Resource) Create(ctx context.Context, obj meta.Object, pre []byte, hints SpliceHints) (*storage.KeyValue, error) {
	f, err := r.storedParts(obj, pre, hints)
	if err != nil {
		return nil, status.InternalError(err)
	}
	m := obj.GetObjectMeta()
	key := r.Key(m.Namespace, m.Name)
	r.HintTerms(key, f.value, obj)
	// f.value is this write's own encoding, never changed after: the
	// store keeps it rather than a copy.
	resp, err := r.Store.OptimisticPut(ctx, key, f.value, 0, storage.PutOptions{ValueOwned: true, Shared: f.shared})
	if err != nil {
		return nil, StorageError(err)
	}
	if !resp.Succeeded {
		return nil, nil
	}
	m.ResourceVersion = strconv.FormatInt(resp.KV.ModRevision, 10)
	return &storage.KeyValue{Key: resp.KV.Key, Value: f.value, Shared: f.shared, ModRevision: resp.KV.ModRevision}, nil
}

// DecodeCopy returns a deep copy of a stored object. A JSON copy is
// encoded into a buffer kept for the next copy: decoding JSON copies what
// it keeps, and the encoding, the size of a stored value, would otherwise
// be garbage of that size on every status write, whose holes scatter the
// stored values kept alongside it over more of the heap's pages.
func (r *Resource) DecodeCopy(obj meta.Object) (meta.Object, error) {
	rv := obj.GetObjectMeta().ResourceVersion
	n, _ := strconv.ParseInt(rv, 10, 64)
	if r.StorageCodec != nil {
		// Other decoders may keep slices of their input.
		b, err := r.Encode(obj)
		if err != nil {
			return nil, status.InternalError(err)
		}
		return r.Decode(&storage.KeyValue{Value: b, ModRevision: n})
	}
	buf, _ := r.copyBuffers.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer func() {
		buf.Reset()
		r.copyBuffers.Put(buf)
	}()
	err := r.inStoredForm(obj, func(obj meta.Object) error { return json.NewEncoder(buf).Encode(obj) })
	if err != nil {
		return nil, status.InternalError(err)
	}
	return r.Decode(&storage.KeyValue{Value: bytes.TrimSuffix(buf.Bytes(), []byte("\n")), ModRevision: n})
}

// Replace stores obj over the stored value cur with compare-and-swap and
// returns the value stored: cur's for an update that changes nothing
// (which keeps its resourceVersion), nil when the object was deleted
// because it lost the last finalizer while being deleted. done is false
// when a concurrent write won the race and the caller should retry. pre
// is obj's encoding without managedFields, or nil (see storedValue).
func (r *Resource) Replace(ctx context.Context, cur *storage.KeyValue, obj meta.Object, pre []byte) (kv *storage.KeyValue, done bool, err error) {
	return r.ReplaceOrRemove(ctx, cur, obj, pre, true)
}

// ReplaceOrRemove is replace; with remove false, an object being deleted
// that has no finalizers left is stored rather than removed (the first
// delete of a kind with DeletionHooks only marks it).
func (r *Resource) ReplaceOrRemove(ctx context.Context, cur *storage.KeyValue, obj meta.Object, pre []byte, remove bool) (kv *storage.KeyValue, done bool, err error) {
	f, err := r.storedParts(obj, pre, SpliceHints{})
	if err != nil {
		return nil, false, status.InternalError(err)
	}
	if sameParts(f, cur) {
		return cur, true, nil
	}
	m := obj.GetObjectMeta()
	key := r.Key(m.Namespace, m.Name)
	if remove && m.DeletionTimestamp != nil && len(m.Finalizers) == 0 && !r.Pending(obj) {
		resp, err := r.Store.OptimisticDelete(ctx, key, cur.ModRevision, storage.DeleteOptions{})
		if err != nil {
			return nil, false, StorageError(err)
		}
		if resp.Succeeded {
			m.ResourceVersion = strconv.FormatInt(resp.Revision, 10)
		}
		return nil, resp.Succeeded, nil
	}
	r.HintTerms(key, f.value, obj)
	// f.value is this write's own encoding: the store keeps it, not a copy.
	resp, err := r.Store.OptimisticPut(ctx, key, f.value, cur.ModRevision, storage.PutOptions{ValueOwned: true, Shared: f.shared})
	if err != nil {
		return nil, false, StorageError(err)
	}
	if !resp.Succeeded {
		return nil, false, nil
	}
	m.ResourceVersion = strconv.FormatInt(resp.KV.ModRevision, 10)
	return &storage.KeyValue{Key: key, Value: f.value, Shared: f.shared, ModRevision: resp.KV.ModRevision}, true, nil
}
