package cbor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// ToJSON converts one CBOR data item to JSON, rejecting what
// kube-apiserver's CBOR decoder rejects. Byte strings become JSON strings
// (base64 when tagged for later base64 encoding), integers stay integers
// and floats keep a fraction or exponent, so that a float is not mistaken
// for an integer by the JSON decoder. Keys are written in sorted order.
func ToJSON(data []byte) ([]byte, error) {
	if err := checkItems(data); err != nil {
		return nil, err
	}
	var v any
	if err := defaultModes.dec.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return appendJSON(nil, v)
}

func appendJSON(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float64:
		return appendFloat(dst, x)
	case string:
		return appendString(dst, x), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendJSON(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		return appendObject(dst, x)
	}
	// The decoding options produce only the types above.
	return nil, fmt.Errorf("cbor: unexpected decoded type %T", v)
}

func appendObject(dst []byte, m map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendJSON(dst, m[k]); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendFloat writes f as encoding/json does, adding ".0" to an integral
// value so that it still reads as a float.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("cbor: unsupported float value %v", f)
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	dst = append(dst, b...)
	if !bytes.ContainsAny(b, ".eE") {
		dst = append(dst, ".0"...)
	}
	return dst, nil
}

func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return append(dst, b...)
}
