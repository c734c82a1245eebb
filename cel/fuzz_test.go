package cel

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/schema"
)

// randomValue builds a random value for schema s: mostly of the right
// type, sometimes of another, sometimes null.
func randomValue(r *rand.Rand, s *schema.Schema, depth int) any {
	if s == nil || depth > 6 || r.Intn(20) == 0 {
		return randomScalar(r)
	}
	switch s.Type {
	case "object":
		m := map[string]any{}
		for name, p := range s.Properties {
			if r.Intn(3) > 0 {
				m[name] = randomValue(r, p, depth+1)
			}
		}
		if s.AdditionalProperties != nil {
			for i := r.Intn(4); i > 0; i-- {
				m[randomString(r)] = randomValue(r, s.AdditionalProperties, depth+1)
			}
		}
		return m
	case "array":
		l := make([]any, r.Intn(5))
		for i := range l {
			l[i] = randomValue(r, s.Items, depth+1)
		}
		return l
	case "integer":
		return int64(r.Intn(200) - 100)
	case "number":
		return r.Float64()*4 - 2
	case "boolean":
		return r.Intn(2) == 0
	case "string":
		switch s.Format {
		case "date-time":
			return []string{"2019-06-01T00:00:00Z", "2024-01-01T10:00:00.5Z", "yesterday"}[r.Intn(3)]
		case "duration":
			return []string{"30m", "2h", "forever"}[r.Intn(3)]
		case "byte":
			return []string{"aGk=", "aGVsbG8=", "%%"}[r.Intn(3)]
		}
		return randomString(r)
	}
	return randomScalar(r)
}

func randomScalar(r *rand.Rand) any {
	switch r.Intn(5) {
	case 0:
		return nil
	case 1:
		return int64(r.Intn(10))
	case 2:
		return 1.5
	case 3:
		return true
	}
	return randomString(r)
}

func randomString(r *rand.Rand) string {
	words := []string{"", "a", "x-a", "red", "root", "bad", "L", "M", "50%", "0%", "http", "Hello, World", "\u00e9t\u00e9"}
	return words[r.Intn(len(words))]
}

// normalize turns json.Number into int64 or float64, as decoded objects
// hold them.
func normalize(x any) any {
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			t[k] = normalize(v)
		}
	case []any:
		for i, v := range t {
			t[i] = normalize(v)
		}
	case json.Number:
		if n, err := t.Int64(); err == nil {
			return n
		}
		f, _ := t.Float64()
		return f
	}
	return x
}

func decodeObject(b []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil, false
	}
	return normalize(m).(map[string]any), true
}

// FuzzValidate evaluates the rules of two schemas on random objects,
// built from the schema by a seeded generator or decoded from raw JSON,
// against random old objects: evaluation never panics, never changes
// its input, reports every error at a field, and gives the same answer
// twice.
func FuzzValidate(f *testing.F) {
	f.Add(int64(1), []byte(`{"spec":{"replicas":0,"color":"red"}}`))
	f.Add(int64(2), []byte(`{"spec":{"ports":[{"name":"a","port":1},{"name":"a"}],"labels":{"b":""}}}`))
	f.Add(int64(3), []byte(`{"spec":{"amount":"50%","free":{"bad":[1,{"x":null}]},"tags":"notalist"}}`))
	f.Add(int64(4), []byte(`{"spec":null,"metadata":{"name":7}}`))
	docs := []string{ruleDoc, transitionDoc}
	schemas := make([]*schema.Schema, len(docs))
	validators := make([]*Validator, len(docs))
	for i, d := range docs {
		s, err := schema.FromOpenAPI([]byte(d))
		if err != nil {
			f.Fatal(err)
		}
		schemas[i], validators[i] = s, compile(f, d)
	}
	f.Fuzz(func(t *testing.T, seed int64, raw []byte) {
		r := rand.New(rand.NewSource(seed))
		for i, v := range validators {
			first, _ := randomValue(r, schemas[i], 0).(map[string]any)
			objs := []map[string]any{first}
			if m, ok := decodeObject(raw); ok {
				objs = append(objs, m)
			}
			old, _ := randomValue(r, schemas[i], 0).(map[string]any)
			for _, obj := range objs {
				if obj == nil {
					continue
				}
				before, _ := json.Marshal([]any{obj, old})
				errs, warns := v.Validate(context.Background(), obj, old)
				again, warns2 := v.Validate(context.Background(), obj, old)
				if after, _ := json.Marshal([]any{obj, old}); !bytes.Equal(before, after) {
					t.Fatalf("validation changed its input: %s -> %s", before, after)
				}
				if errs.Error() != again.Error() {
					t.Fatalf("two answers: %v / %v", errs, again)
				}
				if diff := cmp.Diff(warns, warns2); diff != "" {
					t.Fatalf("two warnings (-first +second):\n%s", diff)
				}
				for _, e := range errs {
					if e.Field == "" || e.Detail == "" && e.Type == "" {
						t.Fatalf("error without a field or a detail: %+v", e)
					}
				}
			}
		}
	})
}
