package patch

import "github.com/kapi-dev/kapi/patch/internal/jsonfast"

// The engines work on decoded JSON: map[string]any, []any, string, bool,
// nil, int64 for integers that fit and float64 for other numbers, as
// meta.Unstructured and Kubernetes' own unstructured objects do.

// decodeJSON parses data as exactly one JSON value. Syntax errors carry
// encoding/json's wording.
func decodeJSON(data []byte) (any, error) { return jsonfast.Decode(data) }

// DecodeObject parses data as one JSON object the way the patch engines
// and the field manager decode objects: integers that fit as int64, other
// numbers as float64; null gives a nil map.
func DecodeObject(data []byte) (map[string]any, error) { return decodeObject(data) }

// DecodeObjectWithoutManagedFields is [DecodeObject] followed by
// removing metadata.managedFields, only without decoding them: for an
// object whose entries the caller has in typed form, as the field manager
// has those of the stored object.
func DecodeObjectWithoutManagedFields(data []byte) (map[string]any, error) {
	return asObject(jsonfast.DecodeOmitting(data, "metadata", "managedFields"))
}

// DecodeValue parses data as exactly one JSON value of any kind, decoded
// as [DecodeObject] decodes objects: what encoding/json's decoding with
// UseNumber gives, numbers then turned into int64 when they are integers
// that fit and float64 otherwise, only several times faster.
func DecodeValue(data []byte) (any, error) { return decodeJSON(data) }

// decodeObject parses data as one JSON object; null gives a nil map. Other
// values fail with encoding/json's message for decoding them into a map.
func decodeObject(data []byte) (map[string]any, error) { return asObject(decodeJSON(data)) }

// asObject is a decoded object, nil for null, or the error of a decode or
// of a value that is not an object.
func asObject(v any, err error) (map[string]any, error) {
	if err != nil {
		return nil, err
	}
	switch t := v.(type) {
	case map[string]any:
		return t, nil
	case nil:
		return nil, nil
	}
	return nil, notObject(v)
}

// convertNumbers replaces json.Number values by int64 or float64 in place.
func convertNumbers(v any) (any, error) { return jsonfast.ConvertNumbers(v) }

// encodeJSON writes v compactly, object keys sorted.
func encodeJSON(v any) ([]byte, error) { return jsonfast.Encode(v) }

// jsonKind names the JSON type of a decoded value as encoding/json's
// messages do.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "number"
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}
