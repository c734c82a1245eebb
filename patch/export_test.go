package patch

// SetGeneralCreate turns the create fast path off (true) or on, so that
// tests can compare it with the general path.
func SetGeneralCreate(m *FieldManager, general bool) { m.generalCreate = general }

// CreatesFast reports whether a create of doc takes the fast path.
func CreatesFast(m *FieldManager, doc []byte) bool {
	obj, err := decodeObject(doc)
	if err != nil || obj == nil {
		return false
	}
	removeManagedFields(obj)
	_, ok := m.createdFields(obj)
	return ok
}
