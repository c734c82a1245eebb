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

// SetGeneralUpdate turns the update fast path off (true) or on.
func SetGeneralUpdate(m *FieldManager, general bool) { m.generalUpdate = general }

// UpdatesFast reports whether an update of live to doc takes the fast path.
func UpdatesFast(m *FieldManager, live, doc []byte) bool {
	l, err := decodeObject(live)
	if err != nil || l == nil {
		return false
	}
	obj, err := decodeObject(doc)
	if err != nil || obj == nil {
		return false
	}
	removeManagedFields(l)
	removeManagedFields(obj)
	_, ok := m.changedFields(l, obj)
	return ok
}
