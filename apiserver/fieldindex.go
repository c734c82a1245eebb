package apiserver

import (
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/storage"
)

// Besides labels, the watch cache indexes every object under a term per
// selectable field of its kind ([Kind.SelectableFields]),
// "=field=value", so that a list whose field selector requires a value
// (field=value, field==value) reads only the objects that have it. A
// label's term never starts with "=" (label keys are not empty); should a
// term collide anyway, the index only offers an object more, which the
// selectors' filter drops. metadata.name and metadata.namespace are not
// indexed: they are in the key, and a selector requiring them narrows the
// key range a list reads instead (see listRange).

// indexTerms returns the index terms of a stored object: its labels'
// and its selectable fields'.
func (r *resource) indexTerms(kv *storage.KeyValue) []string {
	if len(r.kind.SelectableFields) == 0 {
		return r.labelTerms(kv)
	}
	if terms, ok := r.hints.take(kv); ok {
		return terms
	}
	terms := r.labelTerms(kv)
	obj, err := r.decode(kv)
	if err != nil {
		return terms
	}
	for field, get := range r.kind.SelectableFields {
		terms = append(terms, fieldTerm(field, get(obj)))
	}
	slices.Sort(terms)
	return terms
}

func fieldTerm(field, value string) string { return "=" + field + "=" + value }

// fieldIndexSets are the index terms the field selector requires: one
// set per field it requires a value of, kind-specific fields only. The
// index holds the storage version's fields: a request to a version with
// selectable fields of its own ([KindVersion]) reads through the filter
// alone.
func (sel selectors) fieldIndexSets(r *resource) [][]string {
	if r.ownFields && !r.isStorage() {
		return nil
	}
	r = r.stor
	var sets [][]string
	for _, f := range sel.field.Fields() {
		if _, ok := r.kind.SelectableFields[f]; !ok {
			continue
		}
		if v, ok := sel.field.RequiresExactMatch(f); ok {
			sets = append(sets, []string{fieldTerm(f, v)})
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
func (r *resource) listRange(namespace string, sel selectors) string {
	if !r.kind.Namespaced {
		if name, ok := selectedKeyPart(sel, "metadata.name"); ok {
			return r.key("", name)
		}
		return r.listPrefix("")
	}
	if namespace == "" {
		ns, ok := selectedKeyPart(sel, "metadata.namespace")
		if !ok {
			return r.listPrefix("")
		}
		namespace = ns
	}
	if name, ok := selectedKeyPart(sel, "metadata.name"); ok {
		return r.key(namespace, name)
	}
	return r.listPrefix(namespace)
}

// selectedKeyPart returns the value the field selector requires of a key
// part (a name or namespace), when it can be one: not empty and without
// "/".
func selectedKeyPart(sel selectors, field string) (string, bool) {
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
func (sel selectors) keyCheck(r *resource) func(key string) bool {
	name, byName := sel.field.RequiresExactMatch("metadata.name")
	ns, byNS := sel.field.RequiresExactMatch("metadata.namespace")
	byNS = byNS && r.kind.Namespaced
	if !byName && !byNS {
		return nil
	}
	suffix, nsPrefix := "/"+name, r.prefix+ns+"/"
	return func(key string) bool {
		return (!byName || strings.HasSuffix(key, suffix)) && (!byNS || strings.HasPrefix(key, nsPrefix))
	}
}
