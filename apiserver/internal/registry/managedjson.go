package registry

import (
	"encoding/json"

	"github.com/kapi-dev/kapi/internal/typedjson"
	"github.com/kapi-dev/kapi/meta"
)

// MarshalManagedFields encodes entries as encoding/json's Marshal does.
// Entries whose strings need no escaping and whose fieldsV1 are compact
// (what the field manager writes) are written directly: Marshal spends
// most of its time re-reading each fieldsV1 to compact it.
func MarshalManagedFields(entries []meta.ManagedFieldsEntry) ([]byte, error) {
	return AppendManagedFieldsJSON(make([]byte, 0, managedFieldsSize(entries)), entries, nil)
}

// AppendManagedFieldsJSON appends what marshalManagedFields gives to dst.
// compact, when not nil, is the very fieldsV1 (the same bytes, not a
// copy) of one of the entries, known to be compact: it is written
// without being read again.
func AppendManagedFieldsJSON(dst []byte, entries []meta.ManagedFieldsEntry, compact []byte) ([]byte, error) {
	mark := len(dst)
	if out, ok := appendManagedFields(dst, entries, compact); ok {
		return out, nil
	}
	mf, err := json.Marshal(entries)
	if err != nil {
		return nil, err
	}
	return append(dst[:mark], mf...), nil
}

// managedFieldsSize is about the size of entries encoded.
func managedFieldsSize(entries []meta.ManagedFieldsEntry) int {
	n := 2
	for _, e := range entries {
		n += 160 + len(e.Manager) + len(e.APIVersion) + len(e.Subresource)
		if e.FieldsV1 != nil {
			n += len(e.FieldsV1.Raw)
		}
	}
	return n
}

// appendManagedFields appends entries as Marshal encodes them, or
// reports false when one is not plain enough to write directly.
func appendManagedFields(dst []byte, entries []meta.ManagedFieldsEntry, compact []byte) ([]byte, bool) {
	if entries == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for i := range entries {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = appendManagedFieldsEntry(dst, &entries[i], compact); !ok {
			return dst, false
		}
	}
	return append(dst, ']'), true
}

func appendManagedFieldsEntry(dst []byte, e *meta.ManagedFieldsEntry, compact []byte) ([]byte, bool) {
	dst = append(dst, '{')
	first := true
	member := func(name string) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, name...)
	}
	for _, s := range [...]struct{ name, v string }{
		{`"manager":`, e.Manager}, {`"operation":`, string(e.Operation)}, {`"apiVersion":`, e.APIVersion},
	} {
		if s.v != "" {
			if !plainJSONString(s.v) {
				return dst, false
			}
			member(s.name)
			dst = append(append(append(dst, '"'), s.v...), '"')
		}
	}
	if e.Time != nil {
		t, err := e.Time.MarshalJSON()
		if err != nil {
			return dst, false
		}
		member(`"time":`)
		dst = append(dst, t...)
	}
	if e.FieldsType != "" {
		if !plainJSONString(e.FieldsType) {
			return dst, false
		}
		member(`"fieldsType":`)
		dst = append(append(append(dst, '"'), e.FieldsType...), '"')
	}
	if e.FieldsV1 != nil {
		member(`"fieldsV1":`)
		if e.FieldsV1.Raw == nil {
			dst = append(dst, "null"...)
		} else if SameBytes(e.FieldsV1.Raw, compact) || typedjson.Compact(e.FieldsV1.Raw) {
			dst = append(dst, e.FieldsV1.Raw...)
		} else {
			return dst, false
		}
	}
	if e.Subresource != "" {
		if !plainJSONString(e.Subresource) {
			return dst, false
		}
		member(`"subresource":`)
		dst = append(append(append(dst, '"'), e.Subresource...), '"')
	}
	return append(dst, '}'), true
}

// plainJSONString reports whether encoding/json writes s between quotes
// as it is: printable ASCII, nothing it escapes.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// SameBytes reports whether a and b are the same bytes in memory, not
// equal copies: a non-empty slice and itself.
func SameBytes(a, b []byte) bool {
	return len(a) != 0 && len(a) == len(b) && &a[0] == &b[0]
}
