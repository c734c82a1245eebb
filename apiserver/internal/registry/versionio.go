package registry

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
func (r *Resource) versioned() bool { return r.Versions != nil }

// IsStorage reports whether the resource is in its kind's storage
// version.
func (r *Resource) IsStorage() bool { return r.StorageVersion == r }

// StoredInfo returns the version a stored value is in: the apiVersion
// its JSON names, or for binary encodings the storage version (decode
// then checks what the value says).
func (r *Resource) StoredInfo(value []byte) (*versionInfo, error) {
	vs := r.Versions
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
func (r *Resource) decodeStored(kv *storage.KeyValue) (meta.Object, error) {
	return r.decodeStoredValue(kv, false)
}

// decodeStoredValue is decodeStored, with strings shared as
// decodeTransient has them when shared is set.
func (r *Resource) decodeStoredValue(kv *storage.KeyValue, shared bool) (meta.Object, error) {
	info, err := r.StoredInfo(kv.Value)
	if err != nil {
		return nil, fmt.Errorf("decoding stored object %s: %w", kv.Key, err)
	}
	obj := info.new()
	value := StoredBytes(kv)
	if err := r.decodeWhole(value, HasShared(kv), obj, shared); err != nil {
		return nil, fmt.Errorf("decoding stored object %s: %w", kv.Key, err)
	}
	if av := obj.GetTypeMeta().APIVersion; av != "" && av != info.APIVersion {
		// A binary value names its version in its envelope.
		other := r.Versions.byAPI[av]
		if other == nil {
			return nil, fmt.Errorf("decoding stored object %s: stored in %s, which is not a version of %s", kv.Key, av, r.Versions.kind)
		}
		if other.typ != info.typ {
			obj = other.new()
			if err := r.DecodeValue(value, obj); err != nil {
				return nil, fmt.Errorf("decoding stored object %s: %w", kv.Key, err)
			}
		}
		info = other
	}
	tm := obj.GetTypeMeta()
	tm.Kind, tm.APIVersion = r.Kind.Kind, info.APIVersion
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return obj, nil
}

// StoredVersion returns the version name a stored value is in.
func (r *Resource) StoredVersion(value []byte) (string, error) {
	if codec.Sniff(value) == codec.MediaTypeJSON {
		info, err := r.StoredInfo(value)
		if err != nil {
			return "", err
		}
		return info.name, nil
	}
	obj, err := r.decodeStored(&storage.KeyValue{Value: value})
	if err != nil {
		return "", err
	}
	return r.Versions.byAPI[obj.GetTypeMeta().APIVersion].name, nil
}

// InVersion returns obj, of any version of the kind, in the resource's
// version: obj itself when it is, else a converted object, which may
// share obj's contents and must not be changed when obj is shared.
func (r *Resource) InVersion(obj meta.Object) (meta.Object, error) {
	if r.Versions == nil {
		return obj, nil
	}
	return r.Versions.Convert(obj, r.APIVersion)
}

// Object returns an entry's object in the resource's version, shared
// with other readers: it must not be modified.
func (r *Resource) Object(e *watch.Entry) (meta.Object, error) {
	if r.KeepsConverted() {
		return r.KeptObject(e)
	}
	obj, err := Object(e)
	if err != nil || r.Versions == nil {
		return obj, err
	}
	return r.InVersion(obj)
}

// Spliceable reports whether a stored value, as JSON with its
// resourceVersion spliced in, is the object in the resource's version.
func (r *Resource) Spliceable(kv *storage.KeyValue) bool { return r.SpliceAt(kv) >= 0 }

// SpliceAt is where the resourceVersion placeholder is in a stored value
// that splices as spliceable says, and -1 when the value does not.
func (r *Resource) SpliceAt(kv *storage.KeyValue) int {
	at := RvMarkerIndex(kv.Value)
	if at < 0 || r.Versions == nil {
		return at
	}
	if info, err := r.StoredInfo(kv.Value); err != nil || info.APIVersion != r.APIVersion {
		return -1
	}
	return at
}

// AppendConvertedJSON appends an entry's object as JSON in the resource's
// version, encoded once per version and kept on the entry.
func (r *Resource) AppendConvertedJSON(dst []byte, e *watch.Entry) ([]byte, error) {
	b, err := r.ConvertedJSON(e)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// ConvertedJSON returns an entry's object as JSON in the resource's
// version, converting and encoding it the first time.
func (r *Resource) ConvertedJSON(e *watch.Entry) ([]byte, error) {
	b, err := e.Encoded(r.VersionKey(codec.MediaTypeJSON), func() ([]byte, error) {
		obj, err := r.Object(e)
		if err != nil {
			return nil, err
		}
		return json.Marshal(obj)
	})
	if err != nil {
		return nil, InternalError(err)
	}
	return b, nil
}

// InternalError is err as a 500 InternalError, unless it is a Status
// already (a failed conversion), which is answered as it is rather than
// wrapped in another "Internal error occurred".
func InternalError(err error) error {
	var se *status.Error
	if errors.As(err, &se) {
		return err
	}
	return status.InternalError(err)
}

// VersionKey qualifies a key of values kept per entry or per change
// (encodings, table rows) with the resource's version, when its kind has
// several.
func (r *Resource) VersionKey(key string) string {
	if r.Versions == nil {
		return key
	}
	if k, ok := r.keys[key]; ok {
		return k
	}
	return key + ";" + r.APIVersion
}

// setVersionKeys computes the keys of the values kept per entry in the
// resource's version once, so that reads do not build them per object.
func (r *Resource) setVersionKeys() {
	if r.Versions == nil {
		return
	}
	r.keys = map[string]string{RowKey: RowKey + ";" + r.APIVersion, convertedKey: convertedKey + ";" + r.APIVersion}
	for _, mt := range append(r.codecs.MediaTypes(), codec.MediaTypeJSON) {
		r.keys[mt] = mt + ";" + r.APIVersion
	}
}

// ToStorage returns obj in the storage version, for encoding.
func (r *Resource) ToStorage(obj meta.Object) (meta.Object, error) {
	if r.Versions == nil {
		return obj, nil
	}
	return r.Versions.Convert(obj, r.StorageVersion.APIVersion)
}

// The kind's Go hooks (Default, Validate, PrepareForCreate,
// PrepareForUpdate, Finalize) are written against one Go type, so for a
// kind served in several versions they see objects in the storage
// version, whatever the version of the request; the schema's defaults,
// validation and rules are each version's own. A write in the storage
// version, and a kind of one version, convert nothing.

// HookObject returns obj in the version the kind's Go hooks see, the
// storage version: obj itself when it is, or when it is nil.
func (r *Resource) HookObject(obj meta.Object) (meta.Object, error) {
	if obj == nil || r.IsStorage() {
		return obj, nil
	}
	return r.ToStorage(obj)
}

// RunHook runs hook, a Go hook of the kind that changes the object it is
// given, on obj in the storage version, and returns obj as the hook left
// it, in the resource's version.
func (r *Resource) RunHook(obj meta.Object, hook func(meta.Object)) (meta.Object, error) {
	if r.IsStorage() {
		hook(obj)
		return obj, nil
	}
	s, err := r.ToStorage(obj)
	if err != nil {
		return nil, err
	}
	hook(s)
	return r.InVersion(s)
}

// ValidateHook runs hook, the kind's Validate or ValidateStatus, on obj
// and old (nil on create) in the storage version. Its field paths are
// the storage version's.
func (r *Resource) ValidateHook(ctx context.Context, hook func(ctx context.Context, obj, old meta.Object) status.FieldErrors,
	obj, old meta.Object) (status.FieldErrors, error) {
	if r.IsStorage() {
		return hook(ctx, obj, old), nil
	}
	s, err := r.HookObject(obj)
	if err != nil {
		return nil, err
	}
	if old, err = r.HookObject(old); err != nil {
		return nil, err
	}
	return hook(ctx, s, old), nil
}

// rowKey is the key of an entry's rowData among its derived values.
const RowKey = "apiserver/table-row"
