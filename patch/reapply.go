package patch

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// An apply that sets the same fields as the manager's last apply, to
// values of fields the live object already has, and that changes no
// field another manager owns, needs little of structured-merge-diff's
// Updater: merging such a configuration into the live object only
// replaces the values of some of its fields, the manager's set stays
// what it was, nothing is pruned (every field applied last time is
// applied again) and no other manager gains, loses or conflicts on a
// field. Controllers and `kubectl apply` in a loop apply this way, most
// often changing a value or two. The Updater would still convert the
// whole live object to a typed value, merge it, and compare it with the
// result twice; the shortcut walks the configuration alone.

// sameFieldsApply applies cfg, typed as cfgTyped, by the manager with
// identifier id when it can take the shortcut above: ok is false when it
// cannot, and the general path must run. When ok, obj is the merged
// object, or nil when the apply changes nothing; mg is unchanged. liveObj
// is not changed: obj copies the maps on the way to each changed field.
func (m *FieldManager) sameFieldsApply(liveObj, cfg map[string]any, cfgTyped *typed.TypedValue, mg *managed, id, subresource string) (obj map[string]any, ok bool) {
	last, ok := mg.fields[id]
	if !ok || m.generalOnly || !last.Applied() || last.APIVersion() != m.version {
		return nil, false
	}
	if !m.entriesKeptAsTheyAre(liveObj, mg) {
		return nil, false
	}
	set, err := cfgTyped.ToFieldSet()
	if err != nil {
		return nil, false
	}
	set = set.Difference(m.strip)
	if !set.Equals(last.Set()) {
		return nil, false
	}
	// A configuration holding fields the subresource resets has them
	// merged into the object but not recorded; leave that to the general
	// path.
	if filter := m.updater(subresource).IgnoreFilter[m.version]; filter != nil && !filter.Filter(set).Equals(set) {
		return nil, false
	}
	w := assignWalk{managers: mg.fields, id: id}
	if !w.fields(liveObj, cfg, set) {
		return nil, false
	}
	if len(w.changes) == 0 {
		return nil, true
	}
	obj = liveObj
	for _, c := range w.changes {
		obj = withValue(obj, c.path, c.value)
	}
	return obj, true
}

// assignWalk walks a configuration alongside the live object, collecting
// the leaves whose values differ, and gives up on whatever the shortcut
// does not cover.
type assignWalk struct {
	managers fieldpath.ManagedFields
	id       string
	path     []string
	// changes are the leaves to set, in the configuration's walk order.
	changes []assignment
}

type assignment struct {
	path  []string
	value any
}

// fields walks the map cfg, applied over live; set is the configuration's
// field set at this map (its children are the map's fields). It reports
// false when the shortcut must not be taken: a field the live object
// lacks or holds in another form, a null, a list or an empty map that
// differs from the live one (each merged in ways other than replacing a
// value), an atomic map (its set has no children: it is replaced whole),
// or a changed field another manager owns.
func (w *assignWalk) fields(live, cfg map[string]any, set *fieldpath.Set) bool {
	for k, cv := range cfg {
		lv, ok := live[k]
		if !ok {
			return false
		}
		w.path = append(w.path, k)
		ok = w.field(lv, cv, set)
		w.path = w.path[:len(w.path)-1]
		if !ok {
			return false
		}
	}
	return true
}

func (w *assignWalk) field(lv, cv any, set *fieldpath.Set) bool {
	switch c := cv.(type) {
	case []any:
		// A list merges in ways that depend on its type (atomic, set,
		// map); one equal to the live list merges into itself.
		return strictEqual(lv, c)
	case map[string]any:
		l, ok := lv.(map[string]any)
		if !ok {
			return false
		}
		if len(c) == 0 {
			// Atomic, it would replace the live map; granular, leave it.
			return len(l) == 0
		}
		var children *fieldpath.Set
		if set != nil {
			children, _ = set.Children.Get(fieldpath.PathElement{FieldName: &w.path[len(w.path)-1]})
		}
		if children == nil || children.Empty() {
			// Only the stripped metadata has no set of its own (its
			// fields but a few are stripped); anything else without
			// children is atomic.
			if len(w.path) != 1 || w.path[0] != "metadata" {
				return false
			}
		}
		return w.fields(l, c, children)
	case string:
		return assignScalar(w, lv, c)
	case bool:
		return assignScalar(w, lv, c)
	case int64:
		return assignScalar(w, lv, c)
	case float64:
		return assignScalar(w, lv, c)
	}
	return false
}

// assignScalar walks a scalar of the configuration over the live value
// lv, which must be of the same type (structured-merge-diff compares an
// integer and a float by value; the general path sorts that out).
func assignScalar[T string | bool | int64 | float64](w *assignWalk, lv any, c T) bool {
	l, ok := lv.(T)
	return ok && (l == c || w.change(c))
}

// change records the current leaf as changed to v, unless a manager other
// than the applier owns it: the change would then conflict with that
// manager or, forced, take the field from it.
func (w *assignWalk) change(v any) bool {
	p := make(fieldpath.Path, len(w.path))
	for i := range w.path {
		p[i] = fieldpath.PathElement{FieldName: &w.path[i]}
	}
	for id, vs := range w.managers {
		if id != w.id && vs.Set().Has(p) {
			return false
		}
	}
	w.changes = append(w.changes, assignment{path: append([]string(nil), w.path...), value: v})
	return true
}

// withValue returns obj with the field at path set to v, copying the maps
// on the way rather than changing obj; maps already copied for an earlier
// change are copied again, which the few changes of an apply can afford.
func withValue(obj map[string]any, path []string, v any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, x := range obj {
		out[k] = x
	}
	if len(path) == 1 {
		out[path[0]] = v
		return out
	}
	child, _ := obj[path[0]].(map[string]any)
	out[path[0]] = withValue(child, path[1:], v)
	return out
}
