package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/status"
)

// decodeValue decodes JSON as the server hands values to the validator:
// integers as int64, other numbers as float64.
func decodeValue(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return numbers(v), true
}

func numbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = numbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbers(e)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

func sortedMessages(errs status.FieldErrors) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	slices.Sort(out)
	return out
}

// FuzzValidate runs a schema's checks (pruning, defaulting, required
// fields, validation) on arbitrary JSON values. None may panic; every
// problem is a field error with a cause type and a message, and the
// answer does not depend on map order: validating the same value twice
// gives the same problems.
func FuzzValidate(f *testing.F) {
	docs := [][]byte{[]byte(listsDoc)}
	sprocket, err := os.ReadFile("testdata/sprocket.yaml")
	if err != nil {
		f.Fatal(err)
	}
	docs = append(docs, sprocket)
	type target struct {
		s *Schema
		v *Validator
	}
	var targets []target
	for _, d := range docs {
		s, err := FromOpenAPI(d)
		if err != nil {
			f.Fatal(err)
		}
		v, err := NewValidator(s)
		if err != nil {
			f.Fatal(err)
		}
		targets = append(targets, target{s, v})
	}
	for _, seed := range []string{
		`{"set":["a","a"],"numbers":[1,1.0,2.5],"atomics":[{"a":"x"},{"a":"x"}],"map":[{"name":"a"},{"name":"a","port":80}],"free":{"x":[1,{"y":null}]}}`,
		`{"spec":{"size":0,"ratio":1,"name":"ABC","mode":"medium","level":3,"port":"http"}}`,
		`{"spec":{"size":1e400}}`,
		`[1,2]`,
		`null`,
		`{"spec":null,"metadata":{"name":7}}`,
	} {
		f.Add(uint8(0), []byte(seed))
		f.Add(uint8(1), []byte(seed))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		tg := targets[int(which)%len(targets)]
		x, ok := decodeValue(data)
		if !ok {
			return
		}
		tg.s.Prune(x)
		tg.s.ApplyDefaults(x)
		required := tg.s.MissingRequired(status.Path{}, x)
		first := tg.v.Validate(status.Path{}, x)
		for _, e := range append(required, first...) {
			if e == nil || e.Type == "" || e.Error() == "" {
				t.Fatalf("problem without a type or message: %#v", e)
			}
		}
		again := tg.v.Validate(status.Path{}, x)
		if a, b := sortedMessages(first), sortedMessages(again); !slices.Equal(a, b) {
			t.Fatalf("validation is not deterministic:\n%q\n%q", a, b)
		}
	})
}
