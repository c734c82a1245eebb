package registry

import (
	"slices"

	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/storage"
)

// The watch cache indexes every object under a term per label,
// "key=value", so that a list whose label selector requires some values
// of a key (key=value, key in (…)) reads only the objects that have one of
// them. Label keys and values cannot hold "=", so the terms are
// unambiguous.

// LabelTerms returns the index terms of a stored object, sorted: read from
// the stored JSON without decoding it, or from the decoded object for
// other encodings. A value that cannot be read has no terms; it is then
// never read through the index, and neither would it decode for a list.
func (r *Resource) LabelTerms(kv *storage.KeyValue) []string {
	var terms []string
	add := func(k, v string) { terms = append(terms, LabelTerm(k, v)) }
	if !jsonLabels(kv.Value, add) {
		terms = terms[:0]
		obj, err := r.Decode(kv)
		if err != nil {
			return nil
		}
		for k, v := range obj.GetObjectMeta().Labels {
			add(k, v)
		}
	}
	slices.Sort(terms)
	return terms
}

// jsonLabels calls add with each label of a stored JSON object; false
// when the value is not JSON it can read.
func jsonLabels(v []byte, add func(k, v string)) bool {
	if len(v) == 0 || v[0] != '{' {
		return false
	}
	ms, me, ok := jsonscan.ObjectField(v, "metadata")
	if !ok {
		return false
	}
	md := v[ms:me]
	ls, le, ok := jsonscan.ObjectField(md, "labels")
	if !ok {
		return true // no labels
	}
	return jsonscan.EachString(md[ls:le], add)
}

func LabelTerm(k, v string) string { return k + "=" + v }
