package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"unicode/utf8"

	"github.com/kapi-dev/kapi/meta"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// FieldsTypeV1 is the only fieldsType of managedFields entries.
const FieldsTypeV1 = "FieldsV1"

// managed is the decoded managedFields of an object: one field set per
// manager identifier, and the time each entry last changed.
type managed struct {
	fields fieldpath.ManagedFields
	times  map[string]*meta.Time
	// decoded are the entries the sets were decoded from, by identifier,
	// so that an unchanged set is encoded as it was.
	decoded map[string]decodedEntry
}

// decodedEntry is what decoding an entry gave: the identifying fields of
// the entry, when they are what its identifier's JSON gives back (valid
// UTF-8), and its set.
type decodedEntry struct {
	id    meta.ManagedFieldsEntry
	hasID bool
	set   *decodedSet
}

// with returns m with other fields, for the result of an update of m.
func (m *managed) with(fields fieldpath.ManagedFields) *managed {
	return &managed{fields: fields, times: m.times, decoded: m.decoded}
}

func emptyManaged() *managed {
	return &managed{fields: fieldpath.ManagedFields{}, times: map[string]*meta.Time{}}
}

// copy returns a managed that can be changed without touching m.
func (m *managed) copy() *managed {
	c := &managed{fields: m.fields.Copy(), times: make(map[string]*meta.Time, len(m.times)), decoded: m.decoded}
	for k, v := range m.times {
		c.times[k] = v
	}
	return c
}

// managerID builds the identifier of a manager entry, as kube does: the
// JSON of the entry's manager, operation, apiVersion (left out for Apply,
// so that an applier keeps one entry across versions) and subresource.
func managerID(e meta.ManagedFieldsEntry) (string, error) {
	id := identifying(e)
	if b, ok := appendManagerID(make([]byte, 0, 128), id); ok {
		return string(b), nil
	}
	b, err := json.Marshal(&id)
	if err != nil {
		return "", fmt.Errorf("error marshalling manager identifier: %v", err)
	}
	return string(b), nil
}

// identifying returns the fields of e its identifier holds.
func identifying(e meta.ManagedFieldsEntry) meta.ManagedFieldsEntry {
	id := meta.ManagedFieldsEntry{Manager: e.Manager, Operation: e.Operation, APIVersion: e.APIVersion, Subresource: e.Subresource}
	if e.Operation == meta.ManagedFieldsOperationApply {
		id.APIVersion = ""
	}
	return id
}

// decodeManaged parses managedFields entries with kube's checks, taking
// the sets from cache (nil for none) when it decoded them before.
func decodeManaged(entries []meta.ManagedFieldsEntry, cache *setCache) (*managed, error) {
	m := &managed{
		fields:  make(fieldpath.ManagedFields, len(entries)),
		times:   make(map[string]*meta.Time, len(entries)),
		decoded: make(map[string]decodedEntry, len(entries)),
	}
	for i, e := range entries {
		switch e.Operation {
		case meta.ManagedFieldsOperationApply, meta.ManagedFieldsOperationUpdate:
		default:
			return nil, fmt.Errorf("operation must be `Apply` or `Update`")
		}
		if e.APIVersion == "" {
			return nil, fmt.Errorf("apiVersion must not be empty")
		}
		switch e.FieldsType {
		case FieldsTypeV1:
		case "":
			return nil, fmt.Errorf("missing fieldsType in managed fields entry %d", i)
		default:
			return nil, fmt.Errorf("invalid fieldsType %q in managed fields entry %d", e.FieldsType, i)
		}
		id, err := managerID(e)
		if err != nil {
			return nil, fmt.Errorf("error decoding manager from %v: %v", e, err)
		}
		raw := []byte("{}")
		if e.FieldsV1 != nil && e.FieldsV1.Raw != nil {
			raw = e.FieldsV1.Raw
		}
		d, err := cache.decode(raw)
		if err != nil {
			return nil, fmt.Errorf("error decoding versioned set from %v: %v", e, err)
		}
		m.fields[id] = fieldpath.NewVersionedSet(d.set, fieldpath.APIVersion(e.APIVersion), e.Operation == meta.ManagedFieldsOperationApply)
		m.times[id] = e.Time
		ie := identifying(e)
		m.decoded[id] = decodedEntry{id: ie, hasID: validUTF8(ie), set: d}
	}
	return m, nil
}

// fieldsToSet parses a FieldsV1 trie.
func fieldsToSet(raw []byte) (*fieldpath.Set, error) {
	s := &fieldpath.Set{}
	if err := s.FromJSON(bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("error decoding set: %v", err)
	}
	return s, nil
}

// encode writes m back as managedFields entries in kube's order; an empty
// m gives nil.
func (m *managed) encode() ([]meta.ManagedFieldsEntry, error) {
	if len(m.fields) == 0 {
		return nil, nil
	}
	out := make([]meta.ManagedFieldsEntry, 0, len(m.fields))
	for id, vs := range m.fields {
		d := m.decoded[id]
		e := d.id
		if !d.hasID {
			if err := json.Unmarshal([]byte(id), &e); err != nil {
				return nil, fmt.Errorf("error encoding versioned set for %v: error unmarshalling manager identifier %v: %v", id, id, err)
			}
		}
		e.APIVersion = string(vs.APIVersion())
		if vs.Applied() {
			e.Operation = meta.ManagedFieldsOperationApply
		}
		e.FieldsType = FieldsTypeV1
		raw, err := m.setJSON(d, vs.Set())
		if err != nil {
			return nil, fmt.Errorf("error encoding versioned set for %v: error encoding set: %v", id, err)
		}
		e.FieldsV1 = &meta.FieldsV1{Raw: raw}
		if t, ok := m.times[id]; ok {
			e.Time = t
		}
		out = append(out, e)
	}
	SortManagedFields(out)
	return out, nil
}

// SortManagedFields sorts entries as kube-apiserver does: Apply before
// Update, then by time (to the second, a missing time first), manager,
// apiVersion and subresource.
func SortManagedFields(entries []meta.ManagedFieldsEntry) {
	sort.SliceStable(entries, func(i, j int) bool {
		p, q := entries[i], entries[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		ps, qs := unixSeconds(p.Time), unixSeconds(q.Time)
		if ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		if p.APIVersion != q.APIVersion {
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
}

func unixSeconds(t *meta.Time) int64 {
	if t == nil {
		return 0
	}
	return t.Unix()
}

// isResetManagedFields reports whether the managedFields a client sent ask
// to clear them: a non-nil empty list, or a list of one empty entry.
func isResetManagedFields(entries []meta.ManagedFieldsEntry) bool {
	switch len(entries) {
	case 0:
		return entries != nil
	case 1:
		return reflect.DeepEqual(entries[0], meta.ManagedFieldsEntry{})
	}
	return false
}

// stripSet lists the fields never recorded in managedFields.
func stripSet() *fieldpath.Set {
	return fieldpath.NewSet(
		fieldpath.MakePathOrDie("apiVersion"),
		fieldpath.MakePathOrDie("kind"),
		fieldpath.MakePathOrDie("metadata"),
		fieldpath.MakePathOrDie("metadata", "name"),
		fieldpath.MakePathOrDie("metadata", "namespace"),
		fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
		fieldpath.MakePathOrDie("metadata", "selfLink"),
		fieldpath.MakePathOrDie("metadata", "uid"),
		fieldpath.MakePathOrDie("metadata", "clusterName"),
		fieldpath.MakePathOrDie("metadata", "generation"),
		fieldpath.MakePathOrDie("metadata", "managedFields"),
		fieldpath.MakePathOrDie("metadata", "resourceVersion"),
	)
}

// strip removes the stripped fields from one manager's set, dropping the
// manager when nothing is left.
func (m *managed) strip(id string, strip *fieldpath.Set) {
	vs, ok := m.fields[id]
	if !ok {
		return
	}
	s := vs.Set().Difference(strip)
	if s.Empty() {
		delete(m.fields, id)
		return
	}
	m.fields[id] = fieldpath.NewVersionedSet(s, vs.APIVersion(), vs.Applied())
}

// capUpdateManagers merges the oldest Update entries into per-version
// "ancient-changes" entries until at most max remain.
func (m *managed) capUpdateManagers(max int) error {
	var updaters []string
	for id, vs := range m.fields {
		if !vs.Applied() {
			updaters = append(updaters, id)
		}
	}
	if len(updaters) <= max {
		return nil
	}
	sort.Slice(updaters, func(i, j int) bool {
		is, js := unixSeconds(m.times[updaters[i]]), unixSeconds(m.times[updaters[j]])
		if is != js {
			return is < js
		}
		return updaters[i] < updaters[j]
	})
	first := map[string]string{}
	for i, n := 0, len(updaters); i < len(updaters) && n > max; i++ {
		id := updaters[i]
		vs := m.fields[id]
		version := string(vs.APIVersion())
		bucket, err := managerID(meta.ManagedFieldsEntry{Manager: "ancient-changes", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: version})
		if err != nil {
			return fmt.Errorf("failed to create bucket manager for version %v: %v", version, err)
		}
		f, seen := first[version]
		if !seen {
			first[version] = id
			continue
		}
		if _, ok := m.fields[bucket]; !ok {
			m.fields[bucket] = m.fields[f]
			delete(m.fields, f)
		}
		m.fields[bucket] = fieldpath.NewVersionedSet(vs.Set().Union(m.fields[bucket].Set()), vs.APIVersion(), vs.Applied())
		delete(m.fields, id)
		n--
		m.times[bucket] = m.times[id]
	}
	return nil
}

// setJSON encodes set, giving the bytes it was decoded from when it is
// the set d decoded.
func (m *managed) setJSON(d decodedEntry, set *fieldpath.Set) ([]byte, error) {
	if d.set != nil && d.set.set == set && d.set.raw != nil {
		return d.set.raw, nil
	}
	return set.ToJSON()
}

// reconciled reports whether set is known to fit the field manager's
// schema as it is, so that reconciling it with the schema changes nothing.
func (m *managed) reconciled(set *fieldpath.Set) bool {
	for _, d := range m.decoded {
		if d.set.set == set {
			return d.set.fits
		}
	}
	return false
}

// appendManagerID appends the JSON encoding/json gives id (an entry of
// identifying fields only) when its strings need no escaping; ok is false
// otherwise.
func appendManagerID(b []byte, id meta.ManagedFieldsEntry) ([]byte, bool) {
	b = append(b, '{')
	for _, f := range [...]struct{ key, v string }{
		{"manager", id.Manager}, {"operation", string(id.Operation)},
		{"apiVersion", id.APIVersion}, {"subresource", id.Subresource},
	} {
		if f.v == "" {
			continue
		}
		if !plainJSONString(f.v) {
			return b, false
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, f.key...)
		b = append(b, `":"`...)
		b = append(b, f.v...)
		b = append(b, '"')
	}
	return append(b, '}'), true
}

// plainJSONString reports whether encoding/json writes s as it is
// between quotes: printable ASCII but for the characters it escapes.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// validUTF8 reports whether the identifying fields of e are valid UTF-8,
// so that its identifier's JSON decodes back to them.
func validUTF8(e meta.ManagedFieldsEntry) bool {
	return utf8.ValidString(e.Manager) && utf8.ValidString(string(e.Operation)) &&
		utf8.ValidString(e.APIVersion) && utf8.ValidString(e.Subresource)
}
