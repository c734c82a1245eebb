package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Unstructured is an object of a kind defined at run time, such as one
// described by an OpenAPI schema. Its type and object metadata are typed,
// as for every other kind, so generic logic treats it the same way; every
// other top-level field lives in Content as decoded JSON (maps, slices,
// strings, bools, int64, float64 and nil).
type Unstructured struct {
	TypeMeta
	ObjectMeta
	Content map[string]any

	// droppedMeta are the metadata fields the last decode did not know.
	droppedMeta []string
}

// objectMetaFields are the JSON names of ObjectMeta's fields.
var objectMetaFields = func() map[string]bool {
	t := reflect.TypeOf(ObjectMeta{})
	names := make(map[string]bool, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	return names
}()

// DroppedMetadataFields returns the paths ("metadata.foo", sorted) of the
// metadata fields the last UnmarshalJSON found but ObjectMeta does not
// have, and so dropped: a server reports them as unknown fields under
// field validation, as it does the unknown fields of typed objects.
func (u *Unstructured) DroppedMetadataFields() []string { return u.droppedMeta }

var _ Object = (*Unstructured)(nil)

// MarshalJSON writes apiVersion, kind, metadata and then Content in key
// order.
func (u *Unstructured) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	field := func(name string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("field %q: %w", name, err)
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(name)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(b)
		return nil
	}
	if u.APIVersion != "" {
		if err := field("apiVersion", u.APIVersion); err != nil {
			return nil, err
		}
	}
	if u.Kind != "" {
		if err := field("kind", u.Kind); err != nil {
			return nil, err
		}
	}
	if err := field("metadata", &u.ObjectMeta); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(u.Content) {
		if k == "apiVersion" || k == "kind" || k == "metadata" {
			continue
		}
		if err := field(k, u.Content[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON splits a JSON object into type meta, object meta and the
// rest. Integers are kept as int64 and other numbers as float64.
func (u *Unstructured) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("object must be a JSON object, not null")
	}
	*u = Unstructured{}
	if err := u.setFromMap(m); err != nil {
		return err
	}
	return nil
}

func (u *Unstructured) setFromMap(m map[string]any) error {
	var ok bool
	if v, present := m["apiVersion"]; present {
		if u.APIVersion, ok = v.(string); !ok {
			return fmt.Errorf("apiVersion must be a string")
		}
	}
	if v, present := m["kind"]; present {
		if u.Kind, ok = v.(string); !ok {
			return fmt.Errorf("kind must be a string")
		}
	}
	if v, present := m["metadata"]; present && v != nil {
		if mm, ok := v.(map[string]any); ok {
			for k := range mm {
				if !objectMetaFields[k] {
					u.droppedMeta = append(u.droppedMeta, "metadata."+k)
				}
			}
			sort.Strings(u.droppedMeta)
		}
		mb, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(mb, &u.ObjectMeta); err != nil {
			return fmt.Errorf("metadata: %w", err)
		}
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "metadata")
	if err := normalizeNumbers(m); err != nil {
		return err
	}
	u.Content = m
	return nil
}

// normalizeNumbers turns, in place, every json.Number in the maps and
// slices under v into int64 where the number is an integer and float64
// otherwise, as Kubernetes' unstructured decoding does. A number out of
// float64's range (1e999, an integer of 400 digits) is an error, as there:
// JSON has no infinities to encode it back as.
func normalizeNumbers(v any) error {
	var err error
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if t[k], err = normalizeNumber(e); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range t {
			if t[i], err = normalizeNumber(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// normalizeNumber returns v with its numbers normalized.
func normalizeNumber(v any) (any, error) {
	n, ok := v.(json.Number)
	if !ok {
		return v, normalizeNumbers(v)
	}
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, err := n.Float64()
	if err != nil {
		return nil, fmt.Errorf("number %.40s is out of range", string(n))
	}
	return f, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
