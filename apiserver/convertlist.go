package apiserver

import (
	"fmt"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/watch"
)

// A run-time kind whose conversion takes several objects at once
// (Kind.ConvertList, a conversion webhook) converts the objects of a
// list page that are stored in another version in one call, as
// kube-apiserver sends a list's objects in one ConversionReview. Each
// converted object is kept on its entry, once per object version, for
// every encoding of it that follows; a get or a watch event converts
// one object as before.

// convertedKey keys the converted object kept on an entry.
const convertedKey = "apiserver/converted"

// convertPage converts the objects of entries not yet converted to the
// resource's version, in one ConvertList call, and keeps them on their
// entries. A page with one such object leaves it to keptObject.
func (r *resource) convertPage(entries []*watch.Entry) error {
	vs := r.versions
	if vs == nil || vs.convertList == nil {
		return nil
	}
	key := r.versionKey(convertedKey)
	var todo []*watch.Entry
	var in []meta.Object
	var out []*meta.Unstructured
	for _, e := range entries {
		if r.spliceable(e.KV) {
			continue // stored in this version, as JSON
		}
		if _, ok := e.Kept(key); ok {
			continue
		}
		obj, err := object(e)
		if err != nil {
			return err
		}
		u, ok := obj.(*meta.Unstructured)
		if !ok || u.APIVersion == r.apiVersion {
			continue
		}
		c := *u
		c.Content = deepCopyJSON(u.Content).(map[string]any)
		todo, in, out = append(todo, e), append(in, obj), append(out, &c)
	}
	if len(out) < 2 {
		return nil
	}
	if err := vs.convertList(out, r.apiVersion); err != nil {
		return vs.conversionError(in[0].GetTypeMeta().APIVersion, r.apiVersion, err)
	}
	for i, e := range todo {
		if out[i].APIVersion != r.apiVersion {
			return vs.conversionError(in[i].GetTypeMeta().APIVersion, r.apiVersion, fmt.Errorf("the conversion returned apiVersion %q", out[i].APIVersion))
		}
		conv, err := vs.converted(in[i], out[i], r.apiVersion)
		if err != nil {
			return err
		}
		_, _ = e.Derived(key, func() (any, error) { return conv, nil })
	}
	return nil
}

// keptObject returns an entry's object in the resource's version,
// converting it (alone) and keeping it the first time.
func (r *resource) keptObject(e *watch.Entry) (meta.Object, error) {
	v, err := e.Derived(r.versionKey(convertedKey), func() (any, error) {
		obj, err := object(e)
		if err != nil {
			return nil, err
		}
		return r.inVersion(obj)
	})
	if err != nil {
		return nil, err
	}
	return v.(meta.Object), nil
}
