package patch

import (
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch/internal/fastfields"
)

// createdUntracked is UpdateObject's answer for a create that carries no
// managedFields over no stored entries, the create of nearly every
// client, when createdEntries writes it: the entries it would start
// from are then empty whatever liveOrNew picks, and the empty object it
// would compare with is not needed, so neither is made. ok is false for
// any other write, which UpdateObject handles.
func (m *FieldManager) createdUntracked(live []byte, newObj map[string]any, opts UpdateOptions) ([]meta.ManagedFieldsEntry, bool) {
	if len(live) != 0 || newObj == nil || opts.LiveObject != nil || len(opts.LiveManaged) != 0 || len(opts.NewManaged) != 0 {
		return nil, false
	}
	removeManagedFields(newObj)
	return m.createdEntries(newObj, nil, opts.Manager, opts.Subresource)
}

// CreatedEntries returns the managedFields of a create that carries none,
// as [FieldManager.UpdateObject] records it over no stored object, for an
// object whose JSON form (as [DecodeObject] decodes it) is newObj but for
// its metadata, which is md: newObj's metadata is not read, and may hold
// part of md only (the names that validation rules read), so that md's
// form need not be made. ok is false when the entries are not written
// that way, for md with recorded fields other than labels, annotations
// and generateName among them: UpdateObject, given the object's whole
// form, then records the create. The entry's fieldsV1 is compact JSON,
// as encoding/json writes it: no space, nothing it escapes.
func (m *FieldManager) CreatedEntries(newObj map[string]any, md *meta.ObjectMeta, manager, subresource string) ([]meta.ManagedFieldsEntry, bool) {
	if newObj == nil || len(md.ManagedFields) != 0 || len(md.OwnerReferences) != 0 || len(md.Finalizers) != 0 ||
		md.DeletionTimestamp != nil || md.DeletionGracePeriodSeconds != nil {
		return nil, false
	}
	fields := fastfields.Metadata{GenerateName: md.GenerateName, Labels: md.Labels, Annotations: md.Annotations}
	return m.createdEntries(newObj, &fields, manager, subresource)
}
