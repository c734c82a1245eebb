package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// formed is a typed kind with fields of every JSON kind, for checking the
// JSON forms rules see.
type formed struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            formedSpec `json:"spec,omitempty"`
}

type formedSpec struct {
	Mode   string            `json:"mode,omitempty"`
	Count  int64             `json:"count,omitempty"`
	Ratio  float64           `json:"ratio,omitempty"`
	Flag   bool              `json:"flag"`
	Ptr    *int32            `json:"ptr"`
	Tags   []string          `json:"tags,omitempty" listType:"set"`
	Labels map[string]string `json:"labels,omitempty"`
}

// recordingRules stands for a rule engine and keeps the old object each
// evaluation was given.
type recordingRules struct{ olds *[]map[string]any }

func (e recordingRules) Compile(*schema.Schema, status.Path) (schema.RuleValidator, error) {
	return e, nil
}

func (e recordingRules) Validate(_ context.Context, _, old map[string]any) (status.FieldErrors, []string) {
	*e.olds = append(*e.olds, old)
	return nil, nil
}

// randomFormedSpec is a random spec, as JSON.
func randomFormedSpec(r *rand.Rand) formedSpec {
	strs := []string{"a", "héllo", "<b>&", `q"\`, "\u2028", "1e3", ""}
	s := formedSpec{Mode: strs[r.IntN(len(strs))], Count: r.Int64() - 1<<62,
		Ratio: []float64{0, 0.5, 1e21, -3, 1e-7, 123456.75}[r.IntN(6)], Flag: r.IntN(2) == 0}
	if r.IntN(2) == 0 {
		v := r.Int32()
		s.Ptr = &v
	}
	for range r.IntN(3) {
		s.Tags = append(s.Tags, fmt.Sprint("t", r.IntN(1000)))
	}
	if r.IntN(2) == 0 {
		s.Labels = map[string]string{"k": strs[r.IntN(len(strs))]}
	}
	return s
}

// TestRulesOldFormIsTheStoredObjects checks that the old object rules see
// on an update (read from the stored JSON the write already has) is the
// JSON form of the stored object as decoded into its Go type, managedFields
// included, for random objects written by PUT, merge patch and apply.
func TestRulesOldFormIsTheStoredObjects(t *testing.T) {
	var olds []map[string]any
	k := apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Formed", Resource: "formeds",
		Namespaced: true, New: func() meta.Object { return &formed{} }}
	s, err := schema.FromType(reflect.TypeFor[formed]())
	if err != nil {
		t.Fatal(err)
	}
	s.Properties["spec"].XValidations = []schema.Rule{{Rule: "true"}}
	k.Schema = s
	srv := apiserver.New(apiserver.Options{RuleEngine: recordingRules{&olds}})
	if err := srv.Register(k).Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	path := "/apis/stable.example.com/v1/namespaces/default/formeds"
	r := rand.New(rand.NewPCG(19, 7))
	for i := range 60 {
		name := fmt.Sprint("f", i)
		body, _ := json.Marshal(formed{TypeMeta: meta.TypeMeta{APIVersion: "stable.example.com/v1", Kind: "Formed"},
			ObjectMeta: meta.ObjectMeta{Name: name}, Spec: randomFormedSpec(r)})
		if resp := do(t, ts, "POST", path+"?fieldManager=m"+fmt.Sprint(i%3), "application/json", string(body)); resp.code != http.StatusCreated {
			t.Fatalf("create: %d %s", resp.code, resp.body)
		}
		for j := range 3 {
			stored := do(t, ts, "GET", path+"/"+name, "", "")
			var cur formed
			if err := json.Unmarshal(stored.body, &cur); err != nil {
				t.Fatal(err)
			}
			want := generalJSONForm(t, &cur)
			olds = olds[:0]
			spec, _ := json.Marshal(randomFormedSpec(r))
			var resp response
			switch j {
			case 1:
				resp = do(t, ts, "PATCH", path+"/"+name+"?fieldManager=p", "application/merge-patch+json", `{"spec":`+string(spec)+`}`)
			case 2:
				resp = do(t, ts, "PATCH", path+"/"+name+"?fieldManager=a&force=true", "application/apply-patch+yaml",
					`{"apiVersion":"stable.example.com/v1","kind":"Formed","metadata":{"name":"`+name+`"},"spec":`+string(spec)+`}`)
			default:
				next := cur
				_ = json.Unmarshal(spec, &next.Spec)
				b, _ := json.Marshal(&next)
				resp = do(t, ts, "PUT", path+"/"+name, "application/json", string(b))
			}
			if resp.code != http.StatusOK {
				t.Fatalf("write %d of %s: %d %s", j, name, resp.code, resp.body)
			}
			if len(olds) != 1 {
				t.Fatalf("write %d of %s: rules ran %d times", j, name, len(olds))
			}
			if diff := cmp.Diff(want, olds[0]); diff != "" {
				t.Fatalf("write %d of %s: old form (-want +got):\n%s", j, name, diff)
			}
		}
	}
}

// generalJSONForm is obj's JSON form the general way: encoding/json with
// UseNumber, integers as int64 and other numbers as float64.
func generalJSONForm(t *testing.T, obj any) map[string]any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x map[string]any
	if err := dec.Decode(&x); err != nil {
		t.Fatal(err)
	}
	return numbersOf(x).(map[string]any)
}

func numbersOf(x any) any {
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			t[k] = numbersOf(v)
		}
	case []any:
		for i, v := range t {
			t[i] = numbersOf(v)
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
