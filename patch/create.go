package patch

import "github.com/kapi-dev/kapi/meta"

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
	return m.createdEntries(newObj, opts.Manager, opts.Subresource)
}
