package registry

import (
	"slices"

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

// IndexTerms returns the index terms of a stored object: its labels'
// and its selectable fields'.
func (r *Resource) IndexTerms(kv *storage.KeyValue) []string {
	if len(r.Kind.SelectableFields) == 0 {
		return r.LabelTerms(kv)
	}
	if terms, ok := r.Hints.Take(kv); ok {
		return terms
	}
	terms := r.LabelTerms(kv)
	obj, err := r.Decode(kv)
	if err != nil {
		return terms
	}
	for field, get := range r.Kind.SelectableFields {
		terms = append(terms, FieldTerm(field, get(obj)))
	}
	slices.Sort(terms)
	return terms
}

func FieldTerm(field, value string) string { return "=" + field + "=" + value }
