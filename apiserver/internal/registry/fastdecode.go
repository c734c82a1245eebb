package registry

import (
	"encoding/json"
	"reflect"
	"slices"

	"github.com/kapi-dev/kapi/apiserver/kinds"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/fieldvalidation"
	"github.com/kapi-dev/kapi/internal/typedjson"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

// CompileJSON compiles the typed JSON decoder of a kind's Go types: the
// kind's and, for a kind served in several versions, every version's
// whose New returns a zero value, as a decode must start from one. A
// type that finds its unknown fields itself (fieldvalidation.Shadowed)
// is left to its serializer.
func CompileJSON(k kinds.Kind, vs *VersionSet) *typedjson.Decoder {
	news := []func() meta.Object{k.New}
	if vs != nil {
		for _, v := range vs.byAPI {
			news = append(news, v.new)
		}
	}
	var types []reflect.Type
	for _, n := range news {
		obj := n()
		if _, own := obj.(fieldvalidation.Shadowed); own {
			continue
		}
		v := reflect.ValueOf(obj)
		if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().IsZero() && !slices.Contains(types, v.Type()) {
			types = append(types, v.Type())
		}
	}
	return typedjson.New(types...)
}

// DecodeJSON decodes data with ser into obj, a new object, as ser.Decode
// does, or as ser.DecodeTrusted does when trusted. When ser is the JSON
// serializer the kind's compiled decoder tries first; what it does not
// decode (unknown or repeated fields, errors) goes to ser, which words
// the problems and errors.
func (r *Resource) DecodeJSON(ser codec.Serializer, data []byte, obj meta.Object, trusted bool) ([]error, error) {
	j, isJSON := ser.(codec.JSON)
	if isJSON && r.TypedJSON != nil && r.decodeTyped(data, obj, trusted) {
		return nil, nil
	}
	if isJSON && trusted {
		return nil, j.DecodeTrusted(data, obj)
	}
	return ser.Decode(data, obj)
}

// decodeTyped decodes by the compiled plan. What is not trusted is a
// request's body (or a patch applied to the stored object), whose object
// lives as long as the request: its strings share one copy of the body.
// A stored value's object may be kept (the Cached readers' indexes), so
// its strings are each its own, not holding the whole value.
func (r *Resource) decodeTyped(data []byte, obj meta.Object, trusted bool) bool {
	if trusted {
		return r.TypedJSON.Decode(data, obj)
	}
	return r.TypedJSON.DecodeShared(data, obj)
}

// TypedFormWithoutManagedFields is the JSON form of obj without
// metadata.managedFields, as decoding its JSON encoding gives it,
// built from obj by the kind's compiled plan (see typedjson.Form)
// instead of encoding and decoding it. ok is false when the plan does
// not build it, and for an object not in the storage version, whose
// form is the converted object's.
func (r *Resource) TypedFormWithoutManagedFields(obj meta.Object) (map[string]any, bool) {
	tree, _, ok := r.TypedFormNulls(obj)
	return tree, ok
}

// TypedFormNulls is typedFormWithoutManagedFields, and also reports
// whether the form holds a null anywhere (see typedjson.FormNulls).
func (r *Resource) TypedFormNulls(obj meta.Object) (tree map[string]any, nulls, ok bool) {
	if obj == nil || r.TypedJSON == nil || r.StorageVersion != r || r.Versions != nil && obj.GetTypeMeta().APIVersion != r.APIVersion {
		return nil, false, false
	}
	m := obj.GetObjectMeta()
	entries := m.ManagedFields
	m.ManagedFields = nil
	tree, nulls, ok = r.TypedJSON.FormNulls(obj, patch.DecodeValue)
	m.ManagedFields = entries
	return tree, nulls, ok
}

// EncodeJSON is json.Marshal(obj), written by the kind's compiled plan
// (see typedjson.AppendJSON) when it has one for obj's type.
func (r *Resource) EncodeJSON(obj meta.Object) ([]byte, error) {
	b, _, _, err := r.marshalJSONMember(obj, "")
	return b, err
}

// marshalJSONMember is marshalJSON, and also tells where the value of
// obj's member named member is in the encoding, b[start:end], when the
// kind's plan wrote it; start and end are -1 otherwise.
func (r *Resource) marshalJSONMember(obj meta.Object, member string) (b []byte, start, end int, err error) {
	if r.TypedJSON != nil {
		b, start, end, ok := r.TypedJSON.AppendJSONMember(make([]byte, 0, r.encodedSize.Load()+64), obj, member)
		if ok {
			r.encodedSize.Store(int64(len(b)))
			return b, start, end, nil
		}
	}
	b, err = json.Marshal(obj)
	return b, -1, -1, err
}
