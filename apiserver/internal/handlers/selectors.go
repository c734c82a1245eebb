package handlers

import (
	"fmt"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/watch"
)

// Selectors are a request's label and field selectors, parsed once.
type Selectors struct {
	Label meta.LabelSelector
	field meta.FieldSelector
	// name restricts to one object: a watch on a named path.
	name string
}

func (sel Selectors) empty() bool { return sel.Label.Empty() && sel.field.Empty() && sel.name == "" }

// parseSelectors reads labelSelector and fieldSelector, rejecting
// malformed ones and fields the kind cannot select on with a 400.
func (h *Handler) parseSelectors(req *Request) (Selectors, error) {
	q := requestinfo.Query(req.Request)
	var sel Selectors
	var err error
	if sel.Label, err = meta.ParseLabelSelector(q.Get("labelSelector")); err != nil {
		return sel, status.BadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
	}
	if sel.field, err = meta.ParseFieldSelector(q.Get("fieldSelector")); err != nil {
		return sel, status.BadRequest(fmt.Sprintf("invalid field selector: %v", err))
	}
	for _, f := range sel.field.Fields() {
		if !selectable(h.Resource, f) {
			return sel, status.BadRequest(fmt.Sprintf("field label not supported: %s", f))
		}
	}
	sel.name = req.Name
	return sel, nil
}

func selectable(r *registry.Resource, field string) bool {
	switch field {
	case "metadata.name":
		return true
	case "metadata.namespace":
		return r.Kind.Namespaced
	}
	_, ok := r.Kind.SelectableFields[field]
	return ok
}

// matches reports whether obj passes the selectors.
func (sel Selectors) matches(r *registry.Resource, obj meta.Object) bool {
	m := obj.GetObjectMeta()
	if sel.name != "" && m.Name != sel.name {
		return false
	}
	if !sel.Label.Matches(m.Labels) {
		return false
	}
	if sel.field.Empty() {
		return true
	}
	return sel.field.Matches(func(field string) (string, bool) {
		switch field {
		case "metadata.name":
			return m.Name, true
		case "metadata.namespace":
			return m.Namespace, true
		}
		if get, ok := r.Kind.SelectableFields[field]; ok {
			return get(obj), true
		}
		return "", false
	})
}

// filter is the selectors as a watch cache filter. Decoded objects are
// kept by the cache, so each object is decoded once for every selector
// that looks at it. The cache holds objects in the storage version; a
// version with selectable fields of its own ([KindVersion]) reads them
// from each object converted to it, when the selector names one.
func (sel Selectors) filter(r *registry.Resource) func(*watch.Entry) bool {
	onKey := sel.keyCheck(r.StorageVersion)
	if !r.OwnFields || r.IsStorage() || !sel.namesKindField() {
		// The kind's SelectableFields read objects in the storage
		// version, as the cache holds them.
		st := r.StorageVersion
		return func(e *watch.Entry) bool {
			if onKey != nil && !onKey(e.KV.Key) {
				return false
			}
			obj, err := registry.Object(e)
			return err == nil && sel.matches(st, obj)
		}
	}
	return func(e *watch.Entry) bool {
		if onKey != nil && !onKey(e.KV.Key) {
			return false
		}
		obj, err := r.Object(e)
		return err == nil && sel.matches(r, obj)
	}
}

// namesKindField reports whether the field selector names a field
// beyond metadata's.
func (sel Selectors) namesKindField() bool {
	for _, f := range sel.field.Fields() {
		if f != "metadata.name" && f != "metadata.namespace" {
			return true
		}
	}
	return false
}
