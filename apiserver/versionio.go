package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/watch"
)

// A kind served in several versions has one resource per version, all
// sharing the storage version's store and watch cache. The cache holds
// objects in the storage version (converted from whatever version they
// were stored in); each resource converts them to its own version as it
// reads, and converts what it writes to the storage version as it
// encodes. A kind of one version pays for none of this: r.versions is
// nil.

// versioned reports whether the resource's kind has several versions.
func (r *resource) versioned() bool { return r.versions != nil }

// isStorage reports whether the resource is in its kind's storage
// version.
func (r *resource) isStorage() bool { return r.stor == r }

// storedInfo returns the version a stored value is in: the apiVersion
// its JSON names, or for binary encodings the storage version (decode
// then checks what the value says).
func (r *resource) storedInfo(value []byte) (*versionInfo, error) {
	vs := r.versions
	if codec.Sniff(value) != codec.MediaTypeJSON {
		return vs.storage, nil
	}
	s, e, ok := jsonscan.ObjectField(value, "apiVersion")
	if !ok {
		return vs.storage, nil
	}
	raw := value[s:e]
	if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		if info := vs.byAPI[string(raw[1:len(raw)-1])]; info != nil {
			return info, nil // the common case, without allocating
		}
	}
	if len(raw) < 2 || raw[0] != '"' {
		return vs.storage, nil
	}
	// jsonscan.Unquote, apart from this function, keeps the common case above
	// from allocating the string it decodes into.
	av, ok := jsonscan.Unquote(raw)
	if !ok || av == "" {
		return vs.storage, nil
	}
	info := vs.byAPI[av]
	if info == nil {
		return nil, fmt.Errorf("stored in %s, which is not a version of %s", av, vs.kind)
	}
	return info, nil
}

// decodeStored decodes a stored value in the version it was stored in.
func (r *resource) decodeStored(kv *storage.KeyValue) (meta.Object, error) {
	return r.decodeStoredValue(kv, false)
}

// decodeStoredValue is decodeStored, with strings shared as
// decodeTransient has them when shared is set.
func (r *resource) decodeStoredValue(kv *storage.KeyValue, shared bool) (meta.Object, error) {
	info, err := r.storedInfo(kv.Value)
	if err != nil {
		return nil, fmt.Errorf("decoding stored object %s: %w", kv.Key, err)
	}
	obj := info.new()
	value := storedBytes(kv)
	if err := r.decodeWhole(value, hasShared(kv), obj, shared); err != nil {
		return nil, fmt.Errorf("decoding stored object %s: %w", kv.Key, err)
	}
	if av := obj.GetTypeMeta().APIVersion; av != "" && av != info.apiVersion {
		// A binary value names its version in its envelope.
		other := r.versions.byAPI[av]
		if other == nil {
			return nil, fmt.Errorf("decoding stored object %s: stored in %s, which is not a version of %s", kv.Key, av, r.versions.kind)
		}
		if other.typ != info.typ {
			obj = other.new()
			if err := r.decodeValue(value, obj); err != nil {
				return nil, fmt.Errorf("decoding stored object %s: %w", kv.Key, err)
			}
		}
		info = other
	}
	tm := obj.GetTypeMeta()
	tm.Kind, tm.APIVersion = r.kind.Kind, info.apiVersion
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return obj, nil
}

// storedVersion returns the version name a stored value is in.
func (r *resource) storedVersion(value []byte) (string, error) {
	if codec.Sniff(value) == codec.MediaTypeJSON {
		info, err := r.storedInfo(value)
		if err != nil {
			return "", err
		}
		return info.name, nil
	}
	obj, err := r.decodeStored(&storage.KeyValue{Value: value})
	if err != nil {
		return "", err
	}
	return r.versions.byAPI[obj.GetTypeMeta().APIVersion].name, nil
}

// inVersion returns obj, of any version of the kind, in the resource's
// version: obj itself when it is, else a converted object, which may
// share obj's contents and must not be changed when obj is shared.
func (r *resource) inVersion(obj meta.Object) (meta.Object, error) {
	if r.versions == nil {
		return obj, nil
	}
	return r.versions.convert(obj, r.apiVersion)
}

// object returns an entry's object in the resource's version, shared
// with other readers: it must not be modified.
func (r *resource) object(e *watch.Entry) (meta.Object, error) {
	if r.keepsConverted() {
		return r.keptObject(e)
	}
	obj, err := object(e)
	if err != nil || r.versions == nil {
		return obj, err
	}
	return r.inVersion(obj)
}

// spliceable reports whether a stored value, as JSON with its
// resourceVersion spliced in, is the object in the resource's version.
func (r *resource) spliceable(kv *storage.KeyValue) bool { return r.spliceAt(kv) >= 0 }

// spliceAt is where the resourceVersion placeholder is in a stored value
// that splices as spliceable says, and -1 when the value does not.
func (r *resource) spliceAt(kv *storage.KeyValue) int {
	at := rvMarkerIndex(kv.Value)
	if at < 0 || r.versions == nil {
		return at
	}
	if info, err := r.storedInfo(kv.Value); err != nil || info.apiVersion != r.apiVersion {
		return -1
	}
	return at
}

// appendConvertedJSON appends an entry's object as JSON in the resource's
// version, encoded once per version and kept on the entry.
func (r *resource) appendConvertedJSON(dst []byte, e *watch.Entry) ([]byte, error) {
	b, err := r.convertedJSON(e)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// convertedJSON returns an entry's object as JSON in the resource's
// version, converting and encoding it the first time.
func (r *resource) convertedJSON(e *watch.Entry) ([]byte, error) {
	b, err := e.Encoded(r.versionKey(codec.MediaTypeJSON), func() ([]byte, error) {
		obj, err := r.object(e)
		if err != nil {
			return nil, err
		}
		return json.Marshal(obj)
	})
	if err != nil {
		return nil, internalError(err)
	}
	return b, nil
}

// internalError is err as a 500 InternalError, unless it is a Status
// already (a failed conversion), which is answered as it is rather than
// wrapped in another "Internal error occurred".
func internalError(err error) error {
	var se *status.Error
	if errors.As(err, &se) {
		return err
	}
	return status.InternalError(err)
}

// versionKey qualifies a key of values kept per entry or per change
// (encodings, table rows) with the resource's version, when its kind has
// several.
func (r *resource) versionKey(key string) string {
	if r.versions == nil {
		return key
	}
	if k, ok := r.keys[key]; ok {
		return k
	}
	return key + ";" + r.apiVersion
}

// setVersionKeys computes the keys of the values kept per entry in the
// resource's version once, so that reads do not build them per object.
func (r *resource) setVersionKeys() {
	if r.versions == nil {
		return
	}
	r.keys = map[string]string{rowKey: rowKey + ";" + r.apiVersion, convertedKey: convertedKey + ";" + r.apiVersion}
	for _, mt := range append(r.codecs.MediaTypes(), codec.MediaTypeJSON) {
		r.keys[mt] = mt + ";" + r.apiVersion
	}
}

// toStorage returns obj in the storage version, for encoding.
func (r *resource) toStorage(obj meta.Object) (meta.Object, error) {
	if r.versions == nil {
		return obj, nil
	}
	return r.versions.convert(obj, r.stor.apiVersion)
}

// The kind's Go hooks (Default, Validate, PrepareForCreate,
// PrepareForUpdate, Finalize) are written against one Go type, so for a
// kind served in several versions they see objects in the storage
// version, whatever the version of the request; the schema's defaults,
// validation and rules are each version's own. A write in the storage
// version, and a kind of one version, convert nothing.

// hookObject returns obj in the version the kind's Go hooks see, the
// storage version: obj itself when it is, or when it is nil.
func (r *resource) hookObject(obj meta.Object) (meta.Object, error) {
	if obj == nil || r.isStorage() {
		return obj, nil
	}
	return r.toStorage(obj)
}

// runHook runs hook, a Go hook of the kind that changes the object it is
// given, on obj in the storage version, and returns obj as the hook left
// it, in the resource's version.
func (r *resource) runHook(obj meta.Object, hook func(meta.Object)) (meta.Object, error) {
	if r.isStorage() {
		hook(obj)
		return obj, nil
	}
	s, err := r.toStorage(obj)
	if err != nil {
		return nil, err
	}
	hook(s)
	return r.inVersion(s)
}

// validateHook runs hook, the kind's Validate or ValidateStatus, on obj
// and old (nil on create) in the storage version. Its field paths are
// the storage version's.
func (r *resource) validateHook(ctx context.Context, hook func(ctx context.Context, obj, old meta.Object) status.FieldErrors,
	obj, old meta.Object) (status.FieldErrors, error) {
	if r.isStorage() {
		return hook(ctx, obj, old), nil
	}
	s, err := r.hookObject(obj)
	if err != nil {
		return nil, err
	}
	if old, err = r.hookObject(old); err != nil {
		return nil, err
	}
	return hook(ctx, s, old), nil
}
