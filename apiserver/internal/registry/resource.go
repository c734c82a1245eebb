package registry

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kapi-dev/kapi/apiserver/internal/schemaplan"
	"github.com/kapi-dev/kapi/apiserver/kinds"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/internal/typedjson"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/watch"
)

// Resource is a registered kind with everything computed once at
// registration: its storage prefix, its verbs and a plan of the Go type's
// top-level fields for the spec/status split.
type Resource struct {
	Kind          kinds.Kind
	Store         storage.Interface
	Prefix        string // "/group/resource/"
	APIVersion    string
	ListKind      string
	GroupResource meta.GroupResource

	// statusField is the index of the top-level "status" field, or -1.
	statusField int
	// specFields are the indexes of the top-level fields other than
	// TypeMeta, ObjectMeta and status: a change to any of them bumps
	// metadata.generation.
	specFields []int
	// unstructured is set for kinds served as meta.Unstructured.
	unstructured bool
	// Cache serves every read: gets, lists and watches.
	Cache *watch.Cache
	// Plan is the kind's schema compiled: defaults, pruning, validation.
	Plan *schemaplan.Plan
	// Normalized is set when stored values are read through the kind's
	// schema (see normalize).
	Normalized bool
	// Patcher applies patches and keeps managedFields.
	Patcher *patch.Patcher
	// StorageCodec encodes stored values; nil means JSON with a
	// resourceVersion placeholder (see appendJSON). codecs decodes values
	// of any encoding, found by codec.Sniff.
	StorageCodec codec.Serializer
	codecs       *codec.Registry
	// JSONCodec is the codecs' application/json serializer: it decodes
	// stored JSON values and the results of patches.
	JSONCodec codec.Serializer
	// Versions is what the versions of a kind served in several share;
	// nil for a kind of one version. stor is the resource of the storage
	// version, whose store and cache every version shares: r itself for a
	// kind of one version.
	Versions       *VersionSet
	StorageVersion *Resource
	keys           map[string]string // see versionKey
	// OwnFields is set when the version has SelectableFields of its own,
	// which read objects in this version, not the storage version's.
	OwnFields bool
	// Deprecation is the warning of every request to this version.
	Deprecation string
	// Hints carries index terms from writes to the cache (see termHints);
	// nil for a version that is not the storage version.
	Hints *TermHints
	// Splices remembers where recent watch events splice.
	Splices SpliceMemo
	// SpliceManagedFields is set when a write's stored value is made from
	// the encoding the field manager reads (see encodeonce.go).
	SpliceManagedFields bool
	// SharesManagedFields is set when the values r stores keep their
	// managedFields apart (see sharedfields.go).
	SharesManagedFields bool
	Managed             *ManagedInterner
	// TypedJSON decodes JSON into the kind's Go types without reflection
	// where it can (see decodeJSON), and encodes them (see marshalJSON).
	TypedJSON *typedjson.Decoder
	// copyBuffers holds the buffers decodeCopy encodes into (see there).
	copyBuffers sync.Pool
	// managedBuffers holds the buffers spliceShared encodes entries into.
	managedBuffers sync.Pool
	// encodedSize is about the size of the last object marshalJSON
	// wrote, the capacity the next starts with.
	encodedSize atomic.Int64
}

type subresourceInfo struct {
	Name, Group, Version, Kind string
	Verbs                      []string
}

func TypeOf(obj meta.Object) reflect.Type {
	t := reflect.TypeOf(obj)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// NewResource builds the resource of k. stor is the resource of the
// storage version of a kind served in several versions, whose store and
// cache it shares; nil for the storage version itself.
func NewResource(k kinds.Kind, plan *schemaplan.Plan, cacheOpts watch.Options, codecs *codec.Registry, storageMediaType string,
	vs *VersionSet, stor *Resource) (*Resource, error) {
	p, err := newPatcher(k, vs)
	if err != nil {
		return nil, err
	}
	r := &Resource{
		Kind:           k,
		Store:          k.Storage,
		Prefix:         storagePrefix(k.Group, k.Resource),
		APIVersion:     k.GroupVersion().String(),
		ListKind:       k.Kind + "List",
		GroupResource:  k.GroupResource(),
		statusField:    -1,
		Plan:           plan,
		Patcher:        p,
		codecs:         codecs,
		Versions:       vs,
		StorageVersion: stor,
	}
	if err := r.setStorageCodec(storageMediaType); err != nil {
		return nil, err
	}
	r.setVersionKeys()
	if vs != nil {
		v := vs.byAPI[r.APIVersion]
		r.OwnFields, r.Deprecation = v.ownFields, v.deprecation
	}
	sample := k.New()
	if reflect.TypeOf(sample).Kind() != reflect.Pointer {
		return nil, errors.New("New must return a pointer")
	}
	r.TypedJSON = CompileJSON(k, vs)
	if stor != nil {
		r.Store, r.Cache, r.StorageCodec = stor.Store, stor.Cache, stor.StorageCodec
	} else {
		r.StorageVersion = r
		if k.StoredAs != nil {
			r.Store = newSharedStore(&r.Kind, r.Store, codecs)
		}
		cacheOpts.Decode = func(kv *storage.KeyValue) (any, error) { return r.Decode(kv) }
		if r.Normalized = r.normalizes(); r.Normalized {
			cacheOpts.Transform = r.Normalize
		}
		cacheOpts.Index = r.IndexTerms
		if len(k.SelectableFields) > 0 {
			r.Hints = new(TermHints)
		}
		r.Cache = watch.New(r.Store, r.Prefix, cacheOpts)
	}
	r.setSharesManagedFields()
	// stop stops the cache of a resource that is not built after all.
	stop := func() {
		if stor == nil {
			r.Cache.Stop()
		}
	}
	if _, ok := sample.(*meta.Unstructured); ok {
		r.unstructured = true
		return r, nil
	}
	t := TypeOf(sample)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		switch {
		case f.Type == reflect.TypeOf(meta.TypeMeta{}), f.Type == reflect.TypeOf(meta.ObjectMeta{}):
		case schemaplan.JSONName(f) == "status":
			r.statusField = i
		case f.IsExported() && schemaplan.JSONName(f) != "-":
			r.specFields = append(r.specFields, i)
		}
	}
	if k.Subresources.Status && r.statusField < 0 {
		stop()
		return nil, fmt.Errorf("Subresources.Status needs a top-level field with json name \"status\" in %s", t)
	}
	r.SetSpliceManagedFields()
	return r, nil
}

// Verbs lists the resource's verbs in kube-apiserver's order for custom
// resources.
func (r *Resource) Verbs() []string {
	return []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
}

func (r *Resource) Subresources() []subresourceInfo {
	var out []subresourceInfo
	if r.Kind.Subresources.Status {
		out = append(out, subresourceInfo{Name: "status", Group: r.Kind.Group, Version: r.Kind.Version,
			Kind: r.Kind.Kind, Verbs: []string{"get", "patch", "update"}})
	}
	if r.Kind.Subresources.Scale != nil {
		out = append(out, subresourceInfo{Name: "scale", Group: "autoscaling", Version: "v1",
			Kind: "Scale", Verbs: []string{"get", "patch", "update"}})
	}
	if r.Kind.Finalize != nil {
		out = append(out, subresourceInfo{Name: "finalize", Group: r.Kind.Group, Version: r.Kind.Version,
			Kind: r.Kind.Kind, Verbs: []string{"update"}})
	}
	return out
}

// Pending reports whether obj, being deleted, still waits for the kind's
// own finalizers (see DeletionHooks).
func (r *Resource) Pending(obj meta.Object) bool {
	return r.Kind.Deletion != nil && r.Kind.Deletion.Pending != nil && r.Kind.Deletion.Pending(obj)
}

func (r *Resource) HasSubresource(name string) bool {
	for _, s := range r.Subresources() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// Allows reports whether the verb is served on the resource or subresource.
func (r *Resource) Allows(verb, subresource string) bool {
	if subresource == "" {
		return true
	}
	if subresource == "finalize" {
		return verb == "update"
	}
	switch verb {
	case "get", "update", "patch":
		return true
	}
	return false
}

func (r *Resource) Key(namespace, name string) string {
	if r.Kind.Namespaced {
		return r.Prefix + namespace + "/" + name
	}
	return r.Prefix + name
}

// ListPrefix is the key prefix of a list: one namespace, or all of them.
func (r *Resource) ListPrefix(namespace string) string {
	if r.Kind.Namespaced && namespace != "" {
		return r.Prefix + namespace + "/"
	}
	return r.Prefix
}

// NewObject returns an empty object with its type meta set.
func (r *Resource) NewObject() meta.Object {
	obj := r.Kind.New()
	tm := obj.GetTypeMeta()
	tm.Kind, tm.APIVersion = r.Kind.Kind, r.APIVersion
	return obj
}

// setStorageCodec picks the serializer of stored values. JSON (the
// default) is what lets JSON reads be served without decoding; a binary
// encoding makes values smaller in the store at the cost of a decode per
// JSON read. A kind the serializer cannot encode (a kind without protobuf
// tags) is stored as JSON.
func (r *Resource) setStorageCodec(mediaType string) error {
	var ok bool
	if r.JSONCodec, ok = r.codecs.Lookup(codec.MediaTypeJSON); !ok {
		return fmt.Errorf("Options.Codecs: no %s serializer (have %v); stored values and patches are JSON", codec.MediaTypeJSON, r.codecs.MediaTypes())
	}
	if mediaType == "" || mediaType == codec.MediaTypeJSON {
		return nil
	}
	ser, ok := r.codecs.Lookup(mediaType)
	if !ok {
		return fmt.Errorf("storage media type %q: no such serializer (have %v)", mediaType, r.codecs.MediaTypes())
	}
	if mediaType != codec.MediaTypeProtobuf && mediaType != codec.MediaTypeCBOR {
		return fmt.Errorf("storage media type %q: stored values must be JSON, Kubernetes protobuf or CBOR", mediaType)
	}
	if codec.Supports(ser, TypeOf(r.Kind.New())) {
		r.StorageCodec = ser
	}
	return nil
}

// Decode turns a stored value into an object whose resourceVersion is the
// value's ModRevision. Values in any storage encoding are read, so that a
// store written before a change of Options.StorageMediaType stays readable.
//
// The object of a kind served in several versions is decoded in the
// version it was stored in and converted to the resource's.
func (r *Resource) Decode(kv *storage.KeyValue) (meta.Object, error) {
	return r.decodeKV(kv, false)
}

// DecodeTransient is decode for an object that lives as long as the
// request, such as the one a write replaces: what the compiled plan
// decodes has its strings cut from one copy of the stored value (see
// typedjson.DecodeShared) rather than taking an allocation each.
func (r *Resource) DecodeTransient(kv *storage.KeyValue) (meta.Object, error) {
	return r.decodeKV(kv, true)
}

// decodeKV is decode, with strings shared as decodeTransient has them
// when shared is set.
func (r *Resource) decodeKV(kv *storage.KeyValue, shared bool) (meta.Object, error) {
	if r.Versions != nil {
		obj, err := r.decodeStoredValue(kv, shared)
		if err != nil {
			return nil, err
		}
		return r.InVersion(obj)
	}
	obj := r.Kind.New()
	if err := r.decodeStoredBytes(kv, obj, shared); err != nil {
		return nil, fmt.Errorf("decoding stored object %s: %w", kv.Key, err)
	}
	tm := obj.GetTypeMeta()
	tm.Kind, tm.APIVersion = r.Kind.Kind, r.APIVersion
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return obj, nil
}

// DecodeValue decodes a stored value with the codecs' serializer of its
// encoding. The server wrote it, so field validation's strict errors are
// not looked at.
func (r *Resource) DecodeValue(value []byte, obj meta.Object) error {
	return r.decodeValueShared(value, obj, false)
}

// decodeStoredBytes decodes kv's value into obj, as decodeValueShared.
func (r *Resource) decodeStoredBytes(kv *storage.KeyValue, obj meta.Object, shared bool) error {
	return r.decodeWhole(StoredBytes(kv), HasShared(kv), obj, shared)
}

// decodeWhole is decodeValueShared for a value storedBytes gave: fresh
// is set when it is a copy put back together from its parts, which the
// strings of obj may then share as they are, rather than a copy of it.
func (r *Resource) decodeWhole(value []byte, fresh bool, obj meta.Object, shared bool) error {
	if fresh && shared && r.TypedJSON != nil && codec.Sniff(value) == codec.MediaTypeJSON &&
		r.TypedJSON.DecodeOwned(value, obj) {
		return nil
	}
	return r.decodeValueShared(value, obj, shared)
}

// decodeValueShared is decodeValue, with the strings of what the
// compiled plan decodes sharing one copy of value when shared is set.
func (r *Resource) decodeValueShared(value []byte, obj meta.Object, shared bool) error {
	mt := codec.Sniff(value)
	if mt == codec.MediaTypeJSON {
		if shared && r.TypedJSON != nil && r.TypedJSON.DecodeShared(value, obj) {
			return nil
		}
		_, err := r.DecodeJSON(r.JSONCodec, value, obj, true)
		return err
	}
	ser, ok := r.codecs.Lookup(mt)
	if !ok {
		return fmt.Errorf("stored value in %s, which this server does not decode", mt)
	}
	_, err := ser.Decode(value, obj)
	return err
}

// Encode turns an object into its stored value: the resourceVersion is not
// stored, since the store's revision is the source of truth. In JSON a
// placeholder marks where it goes (see appendJSON). An object of a kind
// served in several versions is stored in the storage version.
func (r *Resource) Encode(obj meta.Object) ([]byte, error) {
	var b []byte
	err := r.inStoredForm(obj, func(obj meta.Object) (err error) {
		if r.StorageCodec != nil {
			var buf bytes.Buffer
			err = r.StorageCodec.Encode(&buf, obj)
			b = buf.Bytes()
			return err
		}
		b, err = r.EncodeJSON(obj)
		return err
	})
	return b, err
}

// inStoredForm calls fn with obj as it is encoded for storage: in the
// storage version, its resourceVersion the placeholder in JSON and empty
// otherwise. obj's resourceVersion is restored once fn returns.
func (r *Resource) inStoredForm(obj meta.Object, fn func(meta.Object) error) error {
	obj, err := r.ToStorage(obj)
	if err != nil {
		return err
	}
	m := obj.GetObjectMeta()
	rv := m.ResourceVersion
	defer func() { m.ResourceVersion = rv }()
	if r.StorageCodec != nil {
		m.ResourceVersion = ""
	} else {
		m.ResourceVersion = rvPlaceholder
	}
	return fn(obj)
}

// field returns a top-level field of a typed object, addressable.
func field(obj meta.Object, i int) reflect.Value {
	return reflect.ValueOf(obj).Elem().Field(i)
}

// CopyStatus sets dst's status to src's.
func (r *Resource) CopyStatus(dst, src meta.Object) {
	if r.unstructured {
		du, su := dst.(*meta.Unstructured), src.(*meta.Unstructured)
		if du.Content == nil {
			du.Content = map[string]any{}
		}
		if st, ok := su.Content["status"]; ok {
			du.Content["status"] = st
		} else {
			delete(du.Content, "status")
		}
		return
	}
	if r.statusField >= 0 {
		field(dst, r.statusField).Set(field(src, r.statusField))
	}
}

// ClearStatus empties obj's status.
func (r *Resource) ClearStatus(obj meta.Object) {
	if r.unstructured {
		delete(obj.(*meta.Unstructured).Content, "status")
		return
	}
	if r.statusField >= 0 {
		field(obj, r.statusField).SetZero()
	}
}

// SpecChanged reports whether anything but metadata and status differs.
func (r *Resource) SpecChanged(a, b meta.Object) bool {
	if r.unstructured {
		ua, ub := a.(*meta.Unstructured), b.(*meta.Unstructured)
		for k, v := range ua.Content {
			if k != "status" && !reflect.DeepEqual(v, ub.Content[k]) {
				return true
			}
		}
		for k := range ub.Content {
			if _, ok := ua.Content[k]; !ok && k != "status" {
				return true
			}
		}
		return false
	}
	for _, i := range r.specFields {
		if !reflect.DeepEqual(field(a, i).Interface(), field(b, i).Interface()) {
			return true
		}
	}
	return false
}

// Object returns an entry's decoded object, shared with every other
// reader: it must not be modified.
func Object(e *watch.Entry) (meta.Object, error) {
	obj, err := e.Object()
	if err != nil {
		return nil, status.InternalError(err)
	}
	return obj.(meta.Object), nil
}
