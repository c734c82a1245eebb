package apiserver

import (
	"bytes"
	"errors"
	"time"
	"unique"

	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/storage"
)

// A write encodes its object twice over: once for the field manager,
// which needs its JSON form before managedFields are known, and once to
// store it, with them. When the stored value is the object's JSON and
// metadata.managedFields are the last member of the metadata (ObjectMeta
// encoded by encoding/json, as in every typed kind), the first encoding,
// made without managedFields and with the resourceVersion placeholder,
// becomes the stored value once the entries are put in: the object is
// encoded once, and only its entries again.

// setSpliceManagedFields decides whether r splices managedFields in, on
// a new object of the kind with its type meta set, as writes have it.
func (r *resource) setSpliceManagedFields() {
	r.spliceManagedFields = r.canSpliceManagedFields(r.newObject())
}

// canSpliceManagedFields reports whether the stored values of r are the
// JSON its objects encode to (a typed kind of one stored version,
// stored as JSON) and whether putting managedFields into an encoding
// made without them gives what encoding the object whole does, checked
// on sample, a new object of the kind.
func (r *resource) canSpliceManagedFields(sample meta.Object) bool {
	if r.unstructured || r.storageCodec != nil || !r.isStorage() || r.kind.StoredAs != nil {
		return false
	}
	m := sample.GetObjectMeta()
	m.Name, m.Finalizers = "splice-check", []string{"a/b"}
	now := meta.NewTime(time.Unix(1, 0).UTC())
	m.ManagedFields = []meta.ManagedFieldsEntry{{Manager: "m", Operation: meta.ManagedFieldsOperationUpdate,
		APIVersion: r.apiVersion, Time: &now, FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:metadata":{}}`)}}}
	whole, err := r.encode(sample)
	if err != nil {
		return false
	}
	pre, err := r.encodeWithoutManagedFields(sample)
	if err != nil {
		return false
	}
	spliced, err := spliceManagedFields(pre, m.ManagedFields, spliceHints{})
	return err == nil && bytes.Equal(spliced, whole)
}

// encodeWithoutManagedFields is r.encode(obj) without obj's
// managedFields, which spliceManagedFields puts in.
func (r *resource) encodeWithoutManagedFields(obj meta.Object) ([]byte, error) {
	b, _, err := r.encodeForSplice(obj)
	return b, err
}

// encodeForSplice is encodeWithoutManagedFields, and also tells where
// the metadata is in the encoding when the kind's plan wrote it, for
// spliceManagedFields.
func (r *resource) encodeForSplice(obj meta.Object) ([]byte, spliceHints, error) {
	obj, err := r.toStorage(obj)
	if err != nil {
		return nil, spliceHints{}, err
	}
	m := obj.GetObjectMeta()
	entries, rv := m.ManagedFields, m.ResourceVersion
	m.ManagedFields, m.ResourceVersion = nil, rvPlaceholder
	b, start, end, err := r.marshalJSONMember(obj, "metadata")
	m.ManagedFields, m.ResourceVersion = entries, rv
	return b, spliceHints{metaStart: start, metaEnd: end}, err
}

// formWithoutManagedFields is the JSON form of obj without managedFields
// (what jsonWithoutManagedFields gives) and, when r splices them, obj's
// stored value without them, from the same encoding.
func (r *resource) formWithoutManagedFields(obj meta.Object) (map[string]any, []byte, error) {
	if !r.spliceManagedFields {
		tree, err := r.jsonWithoutManagedFields(obj)
		return tree, nil, err
	}
	pre, err := r.encodeWithoutManagedFields(obj)
	if err != nil {
		return nil, nil, err
	}
	if tree, ok := r.typedFormWithoutManagedFields(obj); ok {
		return tree, pre, nil
	}
	tree, err := patch.DecodeObject(pre)
	if err != nil {
		return nil, nil, err
	}
	// The form has the object's resourceVersion, not the placeholder.
	if md, ok := tree["metadata"].(map[string]any); ok {
		if rv := obj.GetObjectMeta().ResourceVersion; rv != "" {
			md["resourceVersion"] = rv
		} else {
			delete(md, "resourceVersion")
		}
	}
	return tree, pre, nil
}

var errNoMetadataToSplice = errors.New("no metadata object to put managedFields in")

// spliceHints are what the write knows of an encoding it splices
// managedFields into; the zero value knows nothing.
type spliceHints struct {
	// compact is the fieldsV1 of one of the entries, known to be
	// compact: that entry's is written without being checked (see
	// appendManagedFieldsJSON).
	compact []byte
	// metaStart and metaEnd are where the metadata object is in the
	// encoding, when metaEnd > metaStart; otherwise it is looked for.
	metaStart, metaEnd int
}

// spliceManagedFields returns pre, an object's stored value encoded
// without managedFields, with entries as the last member of its
// metadata, where encoding/json writes them. hints are what the write
// knows of pre and entries, or zero.
func spliceManagedFields(pre []byte, entries []meta.ManagedFieldsEntry, hints spliceHints) ([]byte, error) {
	if len(entries) == 0 {
		return pre, nil // omitempty
	}
	start, end, err := metadataSpan(pre, hints)
	if err != nil {
		return nil, err
	}
	// The entries are written in place, not encoded apart and copied.
	out := make([]byte, 0, len(pre)+managedFieldsSize(entries)+len(`,"managedFields":`))
	out = append(out, pre[:end-1]...)
	if end-start > 2 {
		out = append(out, ',')
	}
	out = append(out, `"managedFields":`...)
	out, err = appendManagedFieldsJSON(out, entries, hints.compact)
	if err != nil {
		return nil, err
	}
	return append(out, pre[end-1:]...), nil
}

// metadataSpan is where the metadata object is in pre, from hints when
// they know.
func metadataSpan(pre []byte, hints spliceHints) (start, end int, err error) {
	start, end, ok := hints.metaStart, hints.metaEnd, hints.metaStart >= 0 && hints.metaEnd <= len(pre) && hints.metaEnd-hints.metaStart >= 2
	if !ok {
		start, end, ok = jsonscan.ObjectField(pre, "metadata")
	}
	if !ok || pre[start] != '{' || pre[end-1] != '}' {
		return 0, 0, errNoMetadataToSplice
	}
	return start, end, nil
}

// storedValue is the value to store for obj: pre, its encoding without
// managedFields kept by the write, with them put in, or else obj
// encoded whole. hints are what the write knows of pre and obj's
// entries, or zero (see spliceManagedFields).
func (r *resource) storedValue(obj meta.Object, pre []byte, hints spliceHints) ([]byte, error) {
	if pre == nil {
		return r.encode(obj)
	}
	return spliceManagedFields(pre, obj.GetObjectMeta().ManagedFields, hints)
}

// storedForm is what a write stores: the value, and the part kept apart
// from it when the resource shares managedFields (see sharedfields.go).
type storedForm struct {
	value  []byte
	shared unique.Handle[string]
}

// storedParts is what to store for obj, as storedValue, with its
// managedFields kept apart when r shares them. Spliced values are made
// apart from the start: the entries are encoded on their own, and the
// value is pre with them or their placeholder put in.
func (r *resource) storedParts(obj meta.Object, pre []byte, hints spliceHints) (storedForm, error) {
	entries := obj.GetObjectMeta().ManagedFields
	if pre != nil && r.sharesManagedFields && len(entries) > 0 {
		return r.spliceShared(pre, entries, hints)
	}
	value, err := r.storedValue(obj, pre, hints)
	if err != nil {
		return storedForm{}, err
	}
	v, shared, _ := r.shareManagedFields(value)
	return storedForm{value: v, shared: shared}, nil
}

// spliceShared is spliceManagedFields with the entries kept apart when
// r.managed shares them (see shareManagedFields).
func (r *resource) spliceShared(pre []byte, entries []meta.ManagedFieldsEntry, hints spliceHints) (storedForm, error) {
	start, end, err := metadataSpan(pre, hints)
	if err != nil {
		return storedForm{}, err
	}
	buf, _ := r.managedBuffers.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	defer r.managedBuffers.Put(buf)
	mf := append((*buf)[:0], `"managedFields":`...)
	mf, err = appendManagedFieldsJSON(mf, entries, hints.compact)
	*buf = mf
	if err != nil {
		return storedForm{}, err
	}
	// put is pre with member as the last member of its metadata.
	put := func(member []byte) ([]byte, int) {
		value := make([]byte, 0, len(pre)+1+len(member))
		value = append(value, pre[:end-1]...)
		if end-start > 2 {
			value = append(value, ',')
		}
		k := len(value)
		value = append(value, member...)
		return append(value, pre[end-1:]...), k
	}
	if shared, ok := r.managed.intern(mf); ok {
		value, k := put(mfMarker)
		if at := rvMarkerIndex(value); at >= start && mfMarkerIndex(value, at+len(rvMarker)) == k {
			return storedForm{value: value, shared: shared}, nil
		}
	}
	value, _ := put(mf)
	return storedForm{value: value}, nil
}

// sameParts reports whether f stores what kv holds.
func sameParts(f storedForm, kv *storage.KeyValue) bool {
	if f.shared == kv.Shared {
		return bytes.Equal(f.value, kv.Value) // handles are equal when their strings are
	}
	if hasShared(kv) && f.shared != (unique.Handle[string]{}) {
		return false
	}
	return sameStored(storedBytes(&storage.KeyValue{Value: f.value, Shared: f.shared}), kv)
}
