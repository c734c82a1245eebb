package apiserver

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kapi-dev/kapi/apiserver/internal/schemaplan"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/internal/typedjson"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/watch"
)

// resource is a registered kind with everything computed once at
// registration: its storage prefix, its verbs and a plan of the Go type's
// top-level fields for the spec/status split.
type resource struct {
	kind       Kind
	store      storage.Interface
	prefix     string // "/group/resource/"
	apiVersion string
	listKind   string
	gr         meta.GroupResource

	// statusField is the index of the top-level "status" field, or -1.
	statusField int
	// specFields are the indexes of the top-level fields other than
	// TypeMeta, ObjectMeta and status: a change to any of them bumps
	// metadata.generation.
	specFields []int
	// unstructured is set for kinds served as meta.Unstructured.
	unstructured bool
	// cache serves every read: gets, lists and watches.
	cache *watch.Cache
	// plan is the kind's schema compiled: defaults, pruning, validation.
	plan *schemaplan.Plan
	// normalized is set when stored values are read through the kind's
	// schema (see normalize).
	normalized bool
	// patcher applies patches and keeps managedFields.
	patcher *patch.Patcher
	// storageCodec encodes stored values; nil means JSON with a
	// resourceVersion placeholder (see appendJSON). codecs decodes values
	// of any encoding, found by codec.Sniff.
	storageCodec codec.Serializer
	codecs       *codec.Registry
	// jsonCodec is the codecs' application/json serializer: it decodes
	// stored JSON values and the results of patches.
	jsonCodec codec.Serializer
	// versions is what the versions of a kind served in several share;
	// nil for a kind of one version. stor is the resource of the storage
	// version, whose store and cache every version shares: r itself for a
	// kind of one version.
	versions *versionSet
	stor     *resource
	keys     map[string]string // see versionKey
	// ownFields is set when the version has SelectableFields of its own,
	// which read objects in this version, not the storage version's.
	ownFields bool
	// deprecation is the warning of every request to this version.
	deprecation string
	// hints carries index terms from writes to the cache (see termHints);
	// nil for a version that is not the storage version.
	hints *termHints
	// splices remembers where recent watch events splice.
	splices spliceMemo
	// spliceManagedFields is set when a write's stored value is made from
	// the encoding the field manager reads (see encodeonce.go).
	spliceManagedFields bool
	// sharesManagedFields is set when the values r stores keep their
	// managedFields apart (see sharedfields.go).
	sharesManagedFields bool
	managed             *managedInterner
	// typedJSON decodes JSON into the kind's Go types without reflection
	// where it can (see decodeJSON), and encodes them (see marshalJSON).
	typedJSON *typedjson.Decoder
	// copyBuffers holds the buffers decodeCopy encodes into (see there).
	copyBuffers sync.Pool
	// managedBuffers holds the buffers spliceShared encodes entries into.
	managedBuffers sync.Pool
	// encodedSize is about the size of the last object marshalJSON
	// wrote, the capacity the next starts with.
	encodedSize atomic.Int64
}

type subresourceInfo struct {
	name, group, version, kind string
	verbs                      []string
}

func typeOf(obj meta.Object) reflect.Type {
	t := reflect.TypeOf(obj)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// newResource builds the resource of k. stor is the resource of the
// storage version of a kind served in several versions, whose store and
// cache it shares; nil for the storage version itself.
func newResource(k Kind, plan *schemaplan.Plan, cacheOpts watch.Options, codecs *codec.Registry, storageMediaType string,
	vs *versionSet, stor *resource) (*resource, error) {
	p, err := newPatcher(k, vs)
	if err != nil {
		return nil, err
	}
	r := &resource{
		kind:        k,
		store:       k.Storage,
		prefix:      storagePrefix(k.Group, k.Resource),
		apiVersion:  k.GroupVersion().String(),
		listKind:    k.Kind + "List",
		gr:          k.GroupResource(),
		statusField: -1,
		plan:        plan,
		patcher:     p,
		codecs:      codecs,
		versions:    vs,
		stor:        stor,
	}
	if err := r.setStorageCodec(storageMediaType); err != nil {
		return nil, err
	}
	r.setVersionKeys()
	if vs != nil {
		v := vs.byAPI[r.apiVersion]
		r.ownFields, r.deprecation = v.ownFields, v.deprecation
	}
	sample := k.New()
	if reflect.TypeOf(sample).Kind() != reflect.Pointer {
		return nil, errors.New("New must return a pointer")
	}
	r.typedJSON = compileJSON(k, vs)
	if stor != nil {
		r.store, r.cache, r.storageCodec = stor.store, stor.cache, stor.storageCodec
	} else {
		r.stor = r
		if k.StoredAs != nil {
			r.store = newSharedStore(&r.kind, r.store, codecs)
		}
		cacheOpts.Decode = func(kv *storage.KeyValue) (any, error) { return r.decode(kv) }
		if r.normalized = r.normalizes(); r.normalized {
			cacheOpts.Transform = r.normalize
		}
		cacheOpts.Index = r.indexTerms
		if len(k.SelectableFields) > 0 {
			r.hints = new(termHints)
		}
		r.cache = watch.New(r.store, r.prefix, cacheOpts)
	}
	r.setSharesManagedFields()
	// stop stops the cache of a resource that is not built after all.
	stop := func() {
		if stor == nil {
			r.cache.Stop()
		}
	}
	if _, ok := sample.(*meta.Unstructured); ok {
		r.unstructured = true
		return r, nil
	}
	t := typeOf(sample)
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
	r.setSpliceManagedFields()
	return r, nil
}

// verbs lists the resource's verbs in kube-apiserver's order for custom
// resources.
func (r *resource) verbs() []string {
	return []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
}

func (r *resource) subresources() []subresourceInfo {
	var out []subresourceInfo
	if r.kind.Subresources.Status {
		out = append(out, subresourceInfo{name: "status", group: r.kind.Group, version: r.kind.Version,
			kind: r.kind.Kind, verbs: []string{"get", "patch", "update"}})
	}
	if r.kind.Subresources.Scale != nil {
		out = append(out, subresourceInfo{name: "scale", group: "autoscaling", version: "v1",
			kind: "Scale", verbs: []string{"get", "patch", "update"}})
	}
	if r.kind.Finalize != nil {
		out = append(out, subresourceInfo{name: "finalize", group: r.kind.Group, version: r.kind.Version,
			kind: r.kind.Kind, verbs: []string{"update"}})
	}
	return out
}

// pending reports whether obj, being deleted, still waits for the kind's
// own finalizers (see DeletionHooks).
func (r *resource) pending(obj meta.Object) bool {
	return r.kind.Deletion != nil && r.kind.Deletion.Pending != nil && r.kind.Deletion.Pending(obj)
}

func (r *resource) hasSubresource(name string) bool {
	for _, s := range r.subresources() {
		if s.name == name {
			return true
		}
	}
	return false
}

// allows reports whether the verb is served on the resource or subresource.
func (r *resource) allows(verb, subresource string) bool {
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

func (r *resource) key(namespace, name string) string {
	if r.kind.Namespaced {
		return r.prefix + namespace + "/" + name
	}
	return r.prefix + name
}

// listPrefix is the key prefix of a list: one namespace, or all of them.
func (r *resource) listPrefix(namespace string) string {
	if r.kind.Namespaced && namespace != "" {
		return r.prefix + namespace + "/"
	}
	return r.prefix
}

// newObject returns an empty object with its type meta set.
func (r *resource) newObject() meta.Object {
	obj := r.kind.New()
	tm := obj.GetTypeMeta()
	tm.Kind, tm.APIVersion = r.kind.Kind, r.apiVersion
	return obj
}

// setStorageCodec picks the serializer of stored values. JSON (the
// default) is what lets JSON reads be served without decoding; a binary
// encoding makes values smaller in the store at the cost of a decode per
// JSON read. A kind the serializer cannot encode (a kind without protobuf
// tags) is stored as JSON.
func (r *resource) setStorageCodec(mediaType string) error {
	var ok bool
	if r.jsonCodec, ok = r.codecs.Lookup(codec.MediaTypeJSON); !ok {
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
	if codec.Supports(ser, typeOf(r.kind.New())) {
		r.storageCodec = ser
	}
	return nil
}

// decode turns a stored value into an object whose resourceVersion is the
// value's ModRevision. Values in any storage encoding are read, so that a
// store written before a change of Options.StorageMediaType stays readable.
//
// The object of a kind served in several versions is decoded in the
// version it was stored in and converted to the resource's.
func (r *resource) decode(kv *storage.KeyValue) (meta.Object, error) {
	return r.decodeKV(kv, false)
}

// decodeTransient is decode for an object that lives as long as the
// request, such as the one a write replaces: what the compiled plan
// decodes has its strings cut from one copy of the stored value (see
// typedjson.DecodeShared) rather than taking an allocation each.
func (r *resource) decodeTransient(kv *storage.KeyValue) (meta.Object, error) {
	return r.decodeKV(kv, true)
}

// decodeKV is decode, with strings shared as decodeTransient has them
// when shared is set.
func (r *resource) decodeKV(kv *storage.KeyValue, shared bool) (meta.Object, error) {
	if r.versions != nil {
		obj, err := r.decodeStoredValue(kv, shared)
		if err != nil {
			return nil, err
		}
		return r.inVersion(obj)
	}
	obj := r.kind.New()
	if err := r.decodeStoredBytes(kv, obj, shared); err != nil {
		return nil, fmt.Errorf("decoding stored object %s: %w", kv.Key, err)
	}
	tm := obj.GetTypeMeta()
	tm.Kind, tm.APIVersion = r.kind.Kind, r.apiVersion
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return obj, nil
}

// decodeValue decodes a stored value with the codecs' serializer of its
// encoding. The server wrote it, so field validation's strict errors are
// not looked at.
func (r *resource) decodeValue(value []byte, obj meta.Object) error {
	return r.decodeValueShared(value, obj, false)
}

// decodeStoredBytes decodes kv's value into obj, as decodeValueShared.
func (r *resource) decodeStoredBytes(kv *storage.KeyValue, obj meta.Object, shared bool) error {
	return r.decodeWhole(storedBytes(kv), hasShared(kv), obj, shared)
}

// decodeWhole is decodeValueShared for a value storedBytes gave: fresh
// is set when it is a copy put back together from its parts, which the
// strings of obj may then share as they are, rather than a copy of it.
func (r *resource) decodeWhole(value []byte, fresh bool, obj meta.Object, shared bool) error {
	if fresh && shared && r.typedJSON != nil && codec.Sniff(value) == codec.MediaTypeJSON &&
		r.typedJSON.DecodeOwned(value, obj) {
		return nil
	}
	return r.decodeValueShared(value, obj, shared)
}

// decodeValueShared is decodeValue, with the strings of what the
// compiled plan decodes sharing one copy of value when shared is set.
func (r *resource) decodeValueShared(value []byte, obj meta.Object, shared bool) error {
	mt := codec.Sniff(value)
	if mt == codec.MediaTypeJSON {
		if shared && r.typedJSON != nil && r.typedJSON.DecodeShared(value, obj) {
			return nil
		}
		_, err := r.decodeJSON(r.jsonCodec, value, obj, true)
		return err
	}
	ser, ok := r.codecs.Lookup(mt)
	if !ok {
		return fmt.Errorf("stored value in %s, which this server does not decode", mt)
	}
	_, err := ser.Decode(value, obj)
	return err
}

// encode turns an object into its stored value: the resourceVersion is not
// stored, since the store's revision is the source of truth. In JSON a
// placeholder marks where it goes (see appendJSON). An object of a kind
// served in several versions is stored in the storage version.
func (r *resource) encode(obj meta.Object) ([]byte, error) {
	var b []byte
	err := r.inStoredForm(obj, func(obj meta.Object) (err error) {
		if r.storageCodec != nil {
			var buf bytes.Buffer
			err = r.storageCodec.Encode(&buf, obj)
			b = buf.Bytes()
			return err
		}
		b, err = r.marshalJSON(obj)
		return err
	})
	return b, err
}

// inStoredForm calls fn with obj as it is encoded for storage: in the
// storage version, its resourceVersion the placeholder in JSON and empty
// otherwise. obj's resourceVersion is restored once fn returns.
func (r *resource) inStoredForm(obj meta.Object, fn func(meta.Object) error) error {
	obj, err := r.toStorage(obj)
	if err != nil {
		return err
	}
	m := obj.GetObjectMeta()
	rv := m.ResourceVersion
	defer func() { m.ResourceVersion = rv }()
	if r.storageCodec != nil {
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

// copyStatus sets dst's status to src's.
func (r *resource) copyStatus(dst, src meta.Object) {
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

// clearStatus empties obj's status.
func (r *resource) clearStatus(obj meta.Object) {
	if r.unstructured {
		delete(obj.(*meta.Unstructured).Content, "status")
		return
	}
	if r.statusField >= 0 {
		field(obj, r.statusField).SetZero()
	}
}

// specChanged reports whether anything but metadata and status differs.
func (r *resource) specChanged(a, b meta.Object) bool {
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

// object returns an entry's decoded object, shared with every other
// reader: it must not be modified.
func object(e *watch.Entry) (meta.Object, error) {
	obj, err := e.Object()
	if err != nil {
		return nil, status.InternalError(err)
	}
	return obj.(meta.Object), nil
}
