// Package jsonfast reads and writes decoded JSON values (map[string]any,
// []any, string, bool, nil, int64 for integers that fit and float64 for
// other numbers, as meta.Unstructured holds them) several times faster
// than encoding/json's reflection on the same values, and with exactly
// encoding/json's results.
//
// It is a performance shortcut of package patch, kept apart so that its
// one claim is checked in one place: [Decode] gives what encoding/json's
// decoding with UseNumber followed by [ConvertNumbers] gives, errors
// included (the hand-written reader gives every document it does not
// accept to encoding/json, so messages keep its wording), and [Encode]
// gives json.Marshal's bytes (keys sorted, strings escaped HTML-safe).
// TestCodec and FuzzCodec compare the two for every input.
package jsonfast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Decode parses data as exactly one JSON value. Syntax errors carry
// encoding/json's wording.
func Decode(data []byte) (any, error) {
	if v, ok := parse(data); ok {
		return v, nil
	}
	if !json.Valid(data) {
		// Unmarshal reports the syntax error the way kube's decoders do.
		var raw json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("invalid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return ConvertNumbers(v)
}

// DecodeOmitting is Decode followed by deleting the member inner of the
// member outer of the top-level object, where both are objects, without
// building what it deletes: metadata.managedFields of an object whose
// entries the caller has in typed form.
func DecodeOmitting(data []byte, outer, inner string) (any, error) {
	p := &parser{data: data, omitOuter: outer, omitInner: inner}
	v := p.value(0)
	p.space()
	if !p.bad && p.pos == len(p.data) {
		return v, nil
	}
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		if o, ok := m[outer].(map[string]any); ok {
			delete(o, inner)
		}
	}
	return v, nil
}

// ConvertNumbers replaces the json.Number values of a value decoded with
// UseNumber by int64 or float64, in place, and returns the result.
func ConvertNumbers(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			c, err := ConvertNumbers(e)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
	case []any:
		for i, e := range t {
			c, err := ConvertNumbers(e)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
	case json.Number:
		return convertNumber(t)
	}
	return v, nil
}

// convertNumber gives int64 for an integer literal that fits, float64
// otherwise, as sigs.k8s.io/json's PreserveInts does.
func convertNumber(n json.Number) (any, error) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return nil, fmt.Errorf("json: cannot unmarshal number %s into Go value of type float64", n)
	}
	return f, nil
}

// Encode writes v compactly, object keys sorted, as json.Marshal does.
func Encode(v any) ([]byte, error) {
	if b, ok := appendValue(make([]byte, 0, 1024), v); ok {
		return b, nil
	}
	return json.Marshal(v)
}
