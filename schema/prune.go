package schema

import "github.com/kapi-dev/kapi/status"

// Prune drops from the decoded JSON value x, in place, the object fields
// s does not know, as kube-apiserver prunes custom resources, and returns
// their paths in order ("spec.foo", "spec.ports[0].bar"). A field is
// known when it is a property, when its object has additionalProperties,
// or when its object preserves unknown fields; the properties of an
// object that preserves unknown fields are still pruned below it.
func (s *Schema) Prune(x any) []string {
	var dropped []string
	s.prune(status.Path{}, x, &dropped)
	return dropped
}

func (s *Schema) prune(p status.Path, x any, dropped *[]string) {
	if s == nil {
		return
	}
	switch t := x.(type) {
	case map[string]any:
		if s.Type != "object" && s.Type != "" {
			return // a type error, reported by validation
		}
		for _, k := range sortedKeys(t) {
			ps := s.Properties[k]
			if ps == nil {
				ps = s.AdditionalProperties
			}
			switch {
			case ps != nil:
				ps.prune(p.Child(k), t[k], dropped)
			case !s.XPreserveUnknownFields:
				delete(t, k)
				*dropped = append(*dropped, p.Child(k).String())
			}
		}
	case []any:
		for i, item := range t {
			s.Items.prune(p.Index(i), item, dropped)
		}
	}
}

// PruneNulls drops from the decoded JSON value x, in place, the nulls s
// neither allows (nullable) nor replaces (default), as kube-apiserver
// drops them from a custom resource it converts; it reports whether it
// dropped any. Unlike ApplyDefaults it adds nothing: a conversion's
// result is pruned by the target version's schema, not defaulted by it.
func (s *Schema) PruneNulls(x any) bool {
	if s == nil {
		return false
	}
	changed := false
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			ps := s.Properties[k]
			if ps == nil {
				ps = s.AdditionalProperties
			}
			if ps == nil || v == nil && ps.Unschematic {
				continue
			}
			if v == nil && !ps.Nullable && ps.Default == nil {
				delete(t, k)
				changed = true
				continue
			}
			changed = ps.PruneNulls(v) || changed
		}
	case []any:
		for _, item := range t {
			changed = s.Items.PruneNulls(item) || changed
		}
	}
	return changed
}
