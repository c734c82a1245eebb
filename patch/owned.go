package patch

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/kapi-dev/kapi/patch/internal/fastfields"
)

// An update by a manager that only changes fields it already owns, and
// that no other manager owns, leaves every entry as it was: the general
// path would take those fields from nobody, give them back to the same
// manager and merge them into the set it has. Only the time of that
// manager's entry changes, and only when the write changed a field that
// is recorded (kube refreshes it when the current operation takes any
// field). Knowing that needs no field sets of the changes: walking both
// objects once and looking each changed path up in the entries' sets is
// enough, and the walk stops at the first change that does not qualify.

// ownedUpdate tells whether the update of liveObj to newObj by the
// manager with identifier id leaves mg's entries as they are, as
// trackUpdate's general path would: ok is false when it may not, and the
// general path must run. When ok, changed reports whether that path would
// refresh the time of id's entry.
func (m *FieldManager) ownedUpdate(liveObj, newObj map[string]any, mg *managed, id, subresource string) (changed, ok bool) {
	own, ok := mg.fields[id]
	if !ok || m.generalOnly || own.APIVersion() != m.version || own.Applied() {
		return false, false
	}
	if !m.entriesKeptAsTheyAre(liveObj, mg) {
		return false, false
	}
	v := ownedChanges{fields: mg.fields, id: id, own: own.Set(), reset: m.resets[subresource], strip: m.strip}
	if !m.fast.Changes(liveObj, newObj, &v) {
		return false, false
	}
	return v.changed, true
}

// entriesKeptAsTheyAre reports whether an update keeps mg's sets as they
// are before comparing the objects: every entry is of the manager's
// version (others are dropped, or compared after conversion) and already
// fits the schema (the Updater reconciles sets with schema changes).
func (m *FieldManager) entriesKeptAsTheyAre(liveObj map[string]any, mg *managed) bool {
	var tv *typed.TypedValue
	for _, vs := range mg.fields {
		if vs.APIVersion() != m.version {
			return false
		}
		if mg.reconciled(vs.Set()) {
			continue
		}
		if tv == nil {
			tv = typed.AsTypedUnvalidated(value.NewValueInterface(liveObj), m.pt.Schema, m.pt.TypeRef)
		}
		if set, err := typed.ReconcileFieldSetWithSchema(vs.Set(), tv); err != nil || set != nil {
			return false
		}
	}
	return true
}

// ownedChanges checks each change of an update as ownedUpdate needs.
type ownedChanges struct {
	fields fieldpath.ManagedFields
	id     string
	own    *fieldpath.Set
	reset  *fieldpath.Set // fields the write cannot change, or nil
	strip  *fieldpath.Set
	// changed is set when a change would be recorded for the manager.
	changed bool
}

// Visit accepts a change that leaves every set as it is: one the
// subresource's reset fields filter out, or one of a field no other
// manager owns that the manager either owns (and gets again) or does not
// own and would not get (it is stripped; removals give nobody anything).
func (v *ownedChanges) Visit(c fastfields.Change, p fieldpath.Path) bool {
	if v.reset != nil && underAny(v.reset, p) {
		return true
	}
	for id, vs := range v.fields {
		if id != v.id && vs.Set().Has(p) {
			return false
		}
	}
	owned := v.own.Has(p)
	if c == fastfields.Removed || v.strip.Has(p) {
		return !owned
	}
	v.changed = true
	return owned
}

// underAny reports whether p or one of its parents is in set, as a
// fieldpath exclude filter finds the paths it removes.
func underAny(set *fieldpath.Set, p fieldpath.Path) bool {
	for i := 1; i <= len(p); i++ {
		if set.Has(p[:i]) {
			return true
		}
	}
	return false
}
