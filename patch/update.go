package patch

import (
	"fmt"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch/internal/fastfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// UpdateOptions describes a write for [FieldManager.Update] and
// [FieldManager.UpdateObject].
type UpdateOptions struct {
	// Manager is the write's field manager, as [ManagerName] derives it.
	Manager string
	// Subresource is the subresource written through: "" for the object
	// itself, or "status". It is recorded in the entry.
	Subresource string
	// LiveManaged are the stored object's entries.
	LiveManaged []meta.ManagedFieldsEntry
	// NewManaged are the entries the request carried, nil when it carried
	// none.
	NewManaged []meta.ManagedFieldsEntry
	// LiveObject is live already decoded (as [DecodeObject] decodes it),
	// for a caller that decoded it for another use; live is then not
	// decoded again. Its metadata.managedFields are removed, as newObj's
	// are; it is not changed otherwise.
	LiveObject map[string]any
}

// Update records an ordinary write in managedFields, as kube-apiserver's
// field manager does for create, update (PUT) and JSON, merge and
// strategic merge patches: the manager takes ownership of every field the
// write added or changed, and loses the fields it removed, in an entry
// with operation Update, the kind's apiVersion, the subresource written
// through and the time; a manager whose write changes nothing keeps its
// entry and time as they were.
//
// live is the stored object's JSON, empty (or without metadata.uid) for a
// create; obj is the object about to be stored. managedFields inside the
// JSON are ignored: opts carries the stored object's entries and the ones
// the request carried. As kube does, the request's entries replace the
// stored ones when they decode and are not empty, so clients can edit
// them; a non-nil empty list or a list of one empty entry clears them,
// after which tracking stops until the next create or apply; writes
// through a subresource always start from the stored entries. An object
// updated while it has no entries stays without; a create starts tracking.
//
// On error Update returns opts.LiveManaged with the error: kube logs such
// errors and keeps the stored entries (UpdateNoErrors).
func (m *FieldManager) Update(live, obj []byte, opts UpdateOptions) ([]meta.ManagedFieldsEntry, error) {
	newObj, err := decodeObject(obj)
	if err != nil || newObj == nil {
		return opts.LiveManaged, internal(fmt.Errorf("failed to decode new object: %v", err))
	}
	return m.UpdateObject(live, newObj, opts)
}

// UpdateObject is [FieldManager.Update] of an object already decoded (as
// [DecodeObject] decodes it), for callers that use the decoded object for
// more than tracking. It removes metadata.managedFields from newObj and
// does not change it otherwise.
func (m *FieldManager) UpdateObject(live []byte, newObj map[string]any, opts UpdateOptions) ([]meta.ManagedFieldsEntry, error) {
	if entries, ok := m.createdUntracked(live, newObj, opts); ok {
		return entries, nil
	}
	liveManaged, manager, subresource := opts.LiveManaged, opts.Manager, opts.Subresource
	liveObj, err := opts.LiveObject, error(nil)
	if liveObj == nil {
		if liveObj, err = m.decodeLiveWithoutManagedFields(live); err != nil {
			return liveManaged, internal(err)
		}
	}
	if newObj == nil {
		return liveManaged, internal(fmt.Errorf("failed to decode new object: %v", err))
	}
	mg := m.liveOrNew(subresource, liveManaged, opts.NewManaged)
	removeManagedFields(liveObj)
	removeManagedFields(newObj)
	if len(live) == 0 && len(mg.fields) == 0 {
		if entries, ok := m.createdEntries(newObj, nil, manager, subresource); ok {
			return entries, nil
		}
		if created, ok := m.trackCreate(newObj, manager, subresource); ok {
			mg = created
		} else {
			mg, err = m.update(liveObj, newObj, mg, manager, subresource)
		}
	} else {
		mg, err = m.update(liveObj, newObj, mg, manager, subresource)
	}
	if err != nil {
		return liveManaged, internal(err)
	}
	out, err := mg.encode()
	if err != nil {
		return liveManaged, internal(fmt.Errorf("failed to encode managed fields: %v", err))
	}
	return out, nil
}

// liveOrNew picks the entries an update starts from.
func (m *FieldManager) liveOrNew(subresource string, liveManaged, newManaged []meta.ManagedFieldsEntry) *managed {
	decodeOrEmpty := func(e []meta.ManagedFieldsEntry) *managed {
		mg, err := decodeManaged(e, m.sets)
		if err != nil {
			return emptyManaged()
		}
		return mg
	}
	if subresource != "" {
		return decodeOrEmpty(liveManaged)
	}
	if isResetManagedFields(newManaged) {
		return emptyManaged()
	}
	mg, err := decodeManaged(newManaged, m.sets)
	if err != nil || len(mg.fields) == 0 {
		return decodeOrEmpty(liveManaged)
	}
	return mg
}

// update skips tracking for an existing object without entries, then
// tracks the write.
func (m *FieldManager) update(liveObj, newObj map[string]any, mg *managed, manager, subresource string) (*managed, error) {
	if len(mg.fields) == 0 && metaString(liveObj, "uid") != "" {
		return mg, nil
	}
	return m.trackUpdate(liveObj, newObj, mg, manager, subresource)
}

// trackUpdate records the write under manager's Update entry and caps the
// number of Update entries.
func (m *FieldManager) trackUpdate(liveObj, newObj map[string]any, mg *managed, manager, subresource string) (*managed, error) {
	id, err := m.managerID(manager, meta.ManagedFieldsOperationUpdate, subresource)
	if err != nil {
		return nil, err
	}
	if changed, ok := m.ownedUpdate(liveObj, newObj, mg, id, subresource); ok {
		if changed {
			mg.times[id] = m.timeNow()
		}
	} else if mg, err = m.recordChanges(liveObj, newObj, mg, id, subresource); err != nil {
		return nil, err
	}
	if err := mg.capUpdateManagers(m.max); err != nil {
		return nil, fmt.Errorf("failed to cap update managers: %v", err)
	}
	return mg, nil
}

// recordChanges gives the fields the write changed to the manager with
// identifier id, merged into those it has.
func (m *FieldManager) recordChanges(liveObj, newObj map[string]any, mg *managed, id, subresource string) (*managed, error) {
	mg, err := m.structuredUpdate(liveObj, newObj, mg, subresource)
	if err != nil {
		return nil, err
	}
	if vs, ok := mg.fields[currentOperation]; ok {
		delete(mg.fields, currentOperation)
		if prev, ok := mg.fields[id]; ok {
			mg.fields[id] = fieldpath.NewVersionedSet(vs.Set().Union(prev.Set()), vs.APIVersion(), vs.Applied())
		} else {
			mg.fields[id] = vs
		}
		mg.times[id] = m.timeNow()
	}
	return mg, nil
}

// structuredUpdate computes the fields the write changed and gives them to
// the current operation: by walking both objects (package fastfields) when
// it can, with structured-merge-diff's typed comparison otherwise (always
// when entries of other versions are kept, which the walk would drop).
func (m *FieldManager) structuredUpdate(liveObj, newObj map[string]any, mg *managed, subresource string) (*managed, error) {
	if !m.otherVersions(mg.fields) {
		filter := m.updater(subresource).IgnoreFilter[m.version]
		if fields, ok := m.fast.Updated(liveObj, newObj, mg.fields, currentOperation, filter); ok {
			out := mg.with(fields)
			out.strip(currentOperation, m.strip)
			return out, nil
		}
	}
	newTyped, err := m.pt.FromUnstructured(newObj, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to convert new object (%v) to smd typed: %v", objectGVKNN(newObj), err)
	}
	liveTyped, err := m.pt.FromUnstructured(liveObj, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to convert live object (%v) to smd typed: %v", objectGVKNN(liveObj), err)
	}
	_, fields, err := m.updater(subresource).Update(liveTyped, newTyped, m.version, mg.fields, currentOperation)
	if err != nil {
		return nil, fmt.Errorf("failed to update ManagedFields (%v): %v", objectGVKNN(newObj), err)
	}
	out := mg.with(fields)
	out.strip(currentOperation, m.strip)
	return out, nil
}

// trackCreate records a create that carries no managedFields the fast
// way (package fastfields): manager owns every field of newObj but the
// reset and stripped ones. ok is false when the object needs the general
// path.
func (m *FieldManager) trackCreate(newObj map[string]any, manager, subresource string) (*managed, bool) {
	set, ok := m.fast.Created(newObj, m.updater(subresource).IgnoreFilter[m.version])
	if !ok {
		return nil, false
	}
	id, err := m.managerID(manager, meta.ManagedFieldsOperationUpdate, subresource)
	if err != nil {
		return nil, false
	}
	set = set.Difference(m.strip)
	mg := emptyManaged()
	if !set.Empty() {
		mg.fields[id] = fieldpath.NewVersionedSet(set, m.version, false)
		mg.times[id] = m.timeNow()
	}
	return mg, true
}

// createdEntries writes the entry of a create that carries no
// managedFields straight from the object (package fastfields), as
// trackCreate and encoding would give it; md, when not nil, stands for
// the recorded fields of newObj's metadata (see
// fastfields.Fields.CreatedJSONMeta). ok is false when the object
// needs trackCreate.
func (m *FieldManager) createdEntries(newObj map[string]any, md *fastfields.Metadata, manager, subresource string) ([]meta.ManagedFieldsEntry, bool) {
	_, hasReset := m.resets[subresource]
	names := m.resetNames[subresource]
	if m.generalOnly || m.stripNames == nil || (hasReset && names == nil) {
		return nil, false
	}
	var raw []byte
	var ok bool
	buf := make([]byte, 0, max(m.createdSize.Load(), 256))
	if md != nil {
		raw, ok = m.fast.CreatedJSONMeta(buf, newObj, md, names, m.stripNames)
	} else {
		raw, ok = m.fast.CreatedJSON(buf, newObj, names, m.stripNames)
	}
	if !ok {
		return nil, false
	}
	m.createdSize.Store(int64(len(raw)))
	if string(raw) == "{}" {
		return nil, true
	}
	if manager == "" {
		manager = "unknown"
	}
	e := meta.ManagedFieldsEntry{
		Manager: manager, Operation: meta.ManagedFieldsOperationUpdate, APIVersion: string(m.version),
		Time: m.timeNow(), FieldsType: FieldsTypeV1, FieldsV1: &meta.FieldsV1{Raw: raw}, Subresource: subresource,
	}
	if !validUTF8(e) {
		// Named as its identifier gives it back, by the general path.
		return nil, false
	}
	return []meta.ManagedFieldsEntry{e}, true
}
