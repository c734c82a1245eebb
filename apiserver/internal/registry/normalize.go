package registry

import (
	"bytes"
	"encoding/json"
	"unique"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/storage"
)

// Objects of a run-time kind are read through the schema the kind has
// now, as kube-apiserver reads custom resources: a value stored before
// the schema changed (a CustomResourceDefinition updated, the kind
// installed again) loses the fields the schema no longer knows and gains
// its new defaults on every read, without being written. The work is
// done once per stored object version, as the value enters the watch
// cache (watch.Options.Transform), whose entry then keeps the value as
// read: gets, lists and watches splice and encode it as any other. A
// value that already matches the schema is kept as stored.

// normalizes reports whether stored values of the resource's kind are
// read through its schema: unstructured kinds with a schema.
func (r *Resource) normalizes() bool {
	if _, ok := r.Kind.New().(*meta.Unstructured); !ok {
		return false
	}
	if r.Versions == nil {
		return r.Kind.Schema != nil
	}
	for _, v := range r.Versions.byAPI {
		if v.schema != nil {
			return true
		}
	}
	return false
}

// Normalize returns the stored value kv as the kind's current schema
// reads it: kv itself when pruning and defaulting change nothing (or
// the value cannot be decoded, which reading it then reports), else a
// copy whose value is the pruned and defaulted object in the encoding
// and version it was stored in.
func (r *Resource) Normalize(kv *storage.KeyValue) *storage.KeyValue {
	if kv == nil || len(kv.Value) == 0 {
		return kv
	}
	u := &meta.Unstructured{}
	whole := StoredBytes(kv)
	if err := r.DecodeValue(whole, u); err != nil {
		return kv
	}
	sch := r.storedSchema(u.APIVersion)
	if sch == nil {
		return kv
	}
	if u.Content == nil {
		u.Content = map[string]any{}
	}
	pruned := len(sch.Prune(u.Content)) > 0
	if !sch.ApplyDefaults(u.Content) && !pruned {
		return kv
	}
	value, err := r.encodeStored(u, whole)
	if err != nil {
		return kv
	}
	out := *kv
	out.Value, out.Shared = value, unique.Handle[string]{}
	return &out
}

// storedSchema is the schema of the version a value was stored in.
func (r *Resource) storedSchema(apiVersion string) *schema.Schema {
	if r.Versions == nil {
		return r.Kind.Schema
	}
	if v := r.Versions.byAPI[apiVersion]; v != nil {
		return v.schema
	}
	return r.Versions.storage.schema
}

// encodeStored encodes obj as the stored value like was: in its encoding
// and version, without a resourceVersion (JSON: the placeholder).
func (r *Resource) encodeStored(obj *meta.Unstructured, like []byte) ([]byte, error) {
	mt := codec.Sniff(like)
	if mt == codec.MediaTypeJSON {
		obj.ResourceVersion = rvPlaceholder
		return json.Marshal(obj)
	}
	ser, ok := r.codecs.Lookup(mt)
	if !ok {
		return like, nil
	}
	obj.ResourceVersion = ""
	var buf bytes.Buffer
	err := ser.Encode(&buf, obj)
	return buf.Bytes(), err
}
