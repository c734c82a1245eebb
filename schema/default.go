package schema

// ApplyDefaults fills in the defaults of s in the decoded JSON value x, in
// place, as kube-apiserver defaults custom resources:
//
//   - a property that is missing from an object that is present gets its
//     default, and so does one that is null when the property is not
//     nullable;
//   - a null that is not allowed and has no default is dropped, from a
//     property of any type or none and from a map's values alike;
//   - array items and map values that are null, not nullable and have a
//     default get it;
//   - defaults are copied, then defaulted themselves, recursively.
//
// Objects that are absent are not created: a default for spec.x applies
// only when spec is present (give spec a default of {} to change that).
// ApplyDefaults reports whether it changed x.
func (s *Schema) ApplyDefaults(x any) bool {
	if s == nil {
		return false
	}
	switch t := x.(type) {
	case map[string]any:
		return s.defaultObject(t)
	case []any:
		changed := false
		for i := range t {
			if it := s.Items; it != nil && it.Default != nil && t[i] == nil && !it.Nullable {
				t[i] = copyJSON(it.Default)
				changed = true
			}
			changed = s.Items.ApplyDefaults(t[i]) || changed
		}
		return changed
	}
	return false
}

func (s *Schema) defaultObject(obj map[string]any) bool {
	changed := false
	for k, p := range s.Properties {
		v, present := obj[k]
		switch {
		case p.Default != nil && (!present || v == nil && !p.Nullable):
			obj[k] = copyJSON(p.Default)
			changed = true
		case present && v == nil && !p.Nullable:
			// kube drops such a null whatever the field's type, even
			// when it has none (int-or-string, preserve-unknown-fields).
			delete(obj, k)
			changed = true
		}
	}
	for k, v := range obj {
		p := s.Properties[k]
		if p == nil {
			p = s.AdditionalProperties
			if p != nil && v == nil && !p.Nullable && !p.Unschematic {
				changed = true
				if p.Default == nil {
					// A map value is dropped as a property is.
					delete(obj, k)
					continue
				}
				obj[k] = copyJSON(p.Default)
				v = obj[k]
			}
		}
		changed = p.ApplyDefaults(v) || changed
	}
	return changed
}
