package patch

import (
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kapi-dev/kapi/meta"
)

// GeneralUpdatesOnly makes m record every update and create through the
// general path, for tests comparing its shortcuts with it.
func GeneralUpdatesOnly(m *FieldManager) { m.generalOnly = true }

// OwnedUpdate reports whether an update of live to obj by manager through
// subresource, over the stored entries, the request carrying sent, takes the shortcut for updates
// that only change the manager's own fields.
func OwnedUpdate(m *FieldManager, live, obj []byte, stored, sent []meta.ManagedFieldsEntry, manager, subresource string) bool {
	liveObj, err := m.decodeLive(live)
	if err != nil {
		return false
	}
	newObj, err := decodeObject(obj)
	if err != nil {
		return false
	}
	removeManagedFields(liveObj)
	removeManagedFields(newObj)
	mg := m.liveOrNew(subresource, stored, sent)
	id, err := m.managerID(manager, meta.ManagedFieldsOperationUpdate, subresource)
	if err != nil {
		return false
	}
	_, ok := m.ownedUpdate(liveObj, newObj, mg, id, subresource)
	return ok
}

// ReappliesAll reports whether an apply of cfg by manager through
// subresource, over the stored entries, skips looking for fields to prune.
func ReappliesAll(m *FieldManager, cfg []byte, stored []meta.ManagedFieldsEntry, manager, subresource string) bool {
	in, ok := decodeApply(m, cfg, stored, manager, subresource)
	return ok && m.reappliesAll(in.cfgTyped, in.mg, in.id, subresource)
}

// SameFieldsApply reports whether an apply of cfg by manager through
// subresource to live, over the stored entries, takes the shortcut for
// an apply of the fields the manager applied last time.
func SameFieldsApply(m *FieldManager, live, cfg []byte, stored []meta.ManagedFieldsEntry, manager, subresource string) bool {
	liveObj, err := m.decodeLiveWithoutManagedFields(live)
	if err != nil {
		return false
	}
	in, ok := decodeApply(m, cfg, stored, manager, subresource)
	if !ok {
		return false
	}
	_, ok = m.sameFieldsApply(liveObj, in.cfg, in.cfgTyped, in.mg, in.id, subresource)
	return ok
}

// applyInput is an apply's configuration and entries, decoded as Apply
// decodes them.
type applyInput struct {
	cfg      map[string]any
	cfgTyped *typed.TypedValue
	mg       *managed
	id       string
}

func decodeApply(m *FieldManager, cfg []byte, stored []meta.ManagedFieldsEntry, manager, subresource string) (in applyInput, ok bool) {
	var err error
	if in.cfg, err = decodeObject(cfg); err != nil {
		return in, false
	}
	if in.cfgTyped, err = m.pt.FromUnstructured(in.cfg); err != nil {
		return in, false
	}
	if in.mg, err = decodeManaged(stored, m.sets); err != nil {
		return in, false
	}
	in.id, err = m.managerID(manager, meta.ManagedFieldsOperationApply, subresource)
	return in, err == nil
}
