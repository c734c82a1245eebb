package registry

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

// SetSpliceManagedFields decides whether r splices managedFields in, on
// a new object of the kind with its type meta set, as writes have it.
func (r *Resource) SetSpliceManagedFields() {
	r.SpliceManagedFields = r.canSpliceManagedFields(r.NewObject())
}

// canSpliceManagedFields reports whether the stored values of r are the
// JSON its objects encode to (a typed kind of one stored version,
// stored as JSON) and whether putting managedFields into an encoding
// made without them gives what encoding the object whole does, checked
// on sample, a new object of the kind.
func (r *Resource) canSpliceManagedFields(sample meta.Object) bool {
	if r.unstructured || r.StorageCodec != nil || !r.IsStorage() || r.Kind.StoredAs != nil {
		return false
	}
	m := sample.GetObjectMeta()
	m.Name, m.Finalizers = "splice-check", []string{"a/b"}
	now := meta.NewTime(time.Unix(1, 0).UTC())
	m.ManagedFields = []meta.ManagedFieldsEntry{{Manager: "m", Operation: meta.ManagedFieldsOperationUpdate,
		APIVersion: r.APIVersion, Time: &now, FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:metadata":{}}`)}}}
	whole, err := r.Encode(sample)
	if err != nil {
		return false
	}
	pre, err := r.EncodeWithoutManagedFields(sample)
	if err != nil {
		return false
	}
	spliced, err := SpliceManagedFields(pre, m.ManagedFields, SpliceHints{})
	return err == nil && bytes.Equal(spliced, whole)
}

// EncodeWithoutManagedFields is r.encode(obj) without obj's
// managedFields, which spliceManagedFields puts in.
func (r *Resource) EncodeWithoutManagedFields(obj meta.Object) ([]byte, error) {
	b, _, err := r.EncodeForSplice(obj)
	return b, err
}

// EncodeForSplice is encodeWithoutManagedFields, and also tells where
// the metadata is in the encoding when the kind's plan wrote it, for
// spliceManagedFields.
func (r *Resource) EncodeForSplice(obj meta.Object) ([]byte, SpliceHints, error) {
	obj, err := r.ToStorage(obj)
	if err != nil {
		return nil, SpliceHints{}, err
	}
	m := obj.GetObjectMeta()
	entries, rv := m.ManagedFields, m.ResourceVersion
	m.ManagedFields, m.ResourceVersion = nil, rvPlaceholder
	b, start, end, err := r.marshalJSONMember(obj, "metadata")
	m.ManagedFields, m.ResourceVersion = entries, rv
	return b, SpliceHints{MetaStart: start, MetaEnd: end}, err
}

// FormWithoutManagedFields is the JSON form of obj without managedFields
// (what jsonWithoutManagedFields gives) and, when r splices them, obj's
// stored value without them, from the same encoding.
func (r *Resource) FormWithoutManagedFields(obj meta.Object) (map[string]any, []byte, error) {
	if !r.SpliceManagedFields {
		tree, err := r.JSONWithoutManagedFields(obj)
		return tree, nil, err
	}
	pre, err := r.EncodeWithoutManagedFields(obj)
	if err != nil {
		return nil, nil, err
	}
	if tree, ok := r.TypedFormWithoutManagedFields(obj); ok {
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

// SpliceHints are what the write knows of an encoding it splices
// managedFields into; the zero value knows nothing.
type SpliceHints struct {
	// Compact is the fieldsV1 of one of the entries, known to be
	// compact: that entry's is written without being checked (see
	// appendManagedFieldsJSON).
	Compact []byte
	// MetaStart and metaEnd are where the metadata object is in the
	// encoding, when metaEnd > metaStart; otherwise it is looked for.
	MetaStart, MetaEnd int
}

// SpliceManagedFields returns pre, an object's stored value encoded
// without managedFields, with entries as the last member of its
// metadata, where encoding/json writes them. hints are what the write
// knows of pre and entries, or zero.
func SpliceManagedFields(pre []byte, entries []meta.ManagedFieldsEntry, hints SpliceHints) ([]byte, error) {
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
	out, err = AppendManagedFieldsJSON(out, entries, hints.Compact)
	if err != nil {
		return nil, err
	}
	return append(out, pre[end-1:]...), nil
}

// metadataSpan is where the metadata object is in pre, from hints when
// they know.
func metadataSpan(pre []byte, hints SpliceHints) (start, end int, err error) {
	start, end, ok := hints.MetaStart, hints.MetaEnd, hints.MetaStart >= 0 && hints.MetaEnd <= len(pre) && hints.MetaEnd-hints.MetaStart >= 2
	if !ok {
		start, end, ok = jsonscan.ObjectField(pre, "metadata")
	}
	if !ok || pre[start] != '{' || pre[end-1] != '}' {
		return 0, 0, errNoMetadataToSplice
	}
	return start, end, nil
}

// StoredValue is the value to store for obj: pre, its encoding without
// managedFields kept by the write, with them put in, or else obj
// encoded whole. hints are what the write knows of pre and obj's
// entries, or zero (see spliceManagedFields).
func (r *Resource) StoredValue(obj meta.Object, pre []byte, hints SpliceHints) ([]byte, error) {
	if pre == nil {
		return r.Encode(obj)
	}
	return SpliceManagedFields(pre, obj.GetObjectMeta().ManagedFields, hints)
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
func (r *Resource) storedParts(obj meta.Object, pre []byte, hints SpliceHints) (storedForm, error) {
	entries := obj.GetObjectMeta().ManagedFields
	if pre != nil && r.SharesManagedFields && len(entries) > 0 {
		return r.spliceShared(pre, entries, hints)
	}
	value, err := r.StoredValue(obj, pre, hints)
	if err != nil {
		return storedForm{}, err
	}
	v, shared, _ := r.ShareManagedFields(value)
	return storedForm{value: v, shared: shared}, nil
}

// spliceShared is spliceManagedFields with the entries kept apart when
// r.managed shares them (see shareManagedFields).
func (r *Resource) spliceShared(pre []byte, entries []meta.ManagedFieldsEntry, hints SpliceHints) (storedForm, error) {
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
	mf, err = AppendManagedFieldsJSON(mf, entries, hints.Compact)
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
	if shared, ok := r.Managed.intern(mf); ok {
		value, k := put(MfMarker)
		if at := RvMarkerIndex(value); at >= start && MfMarkerIndex(value, at+len(RvMarker)) == k {
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
	if HasShared(kv) && f.shared != (unique.Handle[string]{}) {
		return false
	}
	return SameStored(StoredBytes(&storage.KeyValue{Value: f.value, Shared: f.shared}), kv)
}
