package handlers

import (
	"strings"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
)

// A list whose selectors require values reads only the objects the
// watch cache indexes under them (see the index terms of the stored
// objects), and only the key range they allow.

// fieldIndexSets are the index terms the field selector requires: one
// set per field it requires a value of, kind-specific fields only. The
// index holds the storage version's fields: a request to a version with
// selectable fields of its own ([KindVersion]) reads through the filter
// alone.
func (sel Selectors) fieldIndexSets(r *registry.Resource) [][]string {
	if r.OwnFields && !r.IsStorage() {
		return nil
	}
	r = r.StorageVersion
	var sets [][]string
	for _, f := range sel.field.Fields() {
		if _, ok := r.Kind.SelectableFields[f]; !ok {
			continue
		}
		if v, ok := sel.field.RequiresExactMatch(f); ok {
			sets = append(sets, []string{registry.FieldTerm(f, v)})
		}
	}
	return sets
}

// listRange returns the key prefix a list reads: one namespace, all of
// them, or the one key of metadata.name=n (a prefix without the trailing
// "/" selects that key alone), as the request's namespace and the field
// selector's metadata.namespace and metadata.name require. The range only
// leaves out objects the selectors would drop, and depends only on the
// request, so the continue tokens of its pages stay relative to it.
func listRange(r *registry.Resource, namespace string, sel Selectors) string {
	if !r.Kind.Namespaced {
		if name, ok := selectedKeyPart(sel, "metadata.name"); ok {
			return r.Key("", name)
		}
		return r.ListPrefix("")
	}
	if namespace == "" {
		ns, ok := selectedKeyPart(sel, "metadata.namespace")
		if !ok {
			return r.ListPrefix("")
		}
		namespace = ns
	}
	if name, ok := selectedKeyPart(sel, "metadata.name"); ok {
		return r.Key(namespace, name)
	}
	return r.ListPrefix(namespace)
}

// selectedKeyPart returns the value the field selector requires of a key
// part (a name or namespace), when it can be one: not empty and without
// "/".
func selectedKeyPart(sel Selectors, field string) (string, bool) {
	v, ok := sel.field.RequiresExactMatch(field)
	if !ok || v == "" || strings.Contains(v, "/") {
		return "", false
	}
	return v, true
}

// keyCheck returns a test of a key that every object the field selector's
// metadata.name=n and metadata.namespace=ns pass also passes, so that a
// list drops most others without decoding them; nil when the selector
// requires neither.
func (sel Selectors) keyCheck(r *registry.Resource) func(key string) bool {
	name, byName := sel.field.RequiresExactMatch("metadata.name")
	ns, byNS := sel.field.RequiresExactMatch("metadata.namespace")
	byNS = byNS && r.Kind.Namespaced
	if !byName && !byNS {
		return nil
	}
	suffix, nsPrefix := "/"+name, r.Prefix+ns+"/"
	return func(key string) bool {
		return (!byName || strings.HasSuffix(key, suffix)) && (!byNS || strings.HasPrefix(key, nsPrefix))
	}
}

// indexSets are the index terms the label selector requires: one set per
// requirement of allowed values, any term of which an object must have.
func (sel Selectors) indexSets() [][]string {
	req := sel.Label.Required()
	if len(req) == 0 {
		return nil
	}
	sets := make([][]string, len(req))
	for i, lv := range req {
		sets[i] = make([]string, len(lv.Values))
		for j, v := range lv.Values {
			sets[i][j] = registry.LabelTerm(lv.Key, v)
		}
	}
	return sets
}
