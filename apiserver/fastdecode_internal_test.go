package apiserver

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/storage"
)

const splicedBody = `{"apiVersion":"g.example.com/v1","kind":"Spliced","metadata":{"name":"a","namespace":"ns",
"labels":{"app":"x","tier":"web"},"creationTimestamp":"2024-01-02T03:04:05Z","managedFields":[{"manager":"m",
"operation":"Update","apiVersion":"g.example.com/v1","time":"2024-01-02T03:04:05Z","fieldsType":"FieldsV1",
"fieldsV1":{"f:spec":{"f:note":{}}}}]},"spec":{"note":"hello","map":{"k":"v"}}}`

// TestDecodeJSONMatchesGeneral checks that decoding with the kind's
// compiled decoder gives what the JSON serializer gives, strict or
// trusted: the object, the strict problems and the error, for bodies it
// decodes and bodies it leaves to the serializer.
func TestDecodeJSONMatchesGeneral(t *testing.T) {
	r := spliceResource(func() meta.Object { return &spliced{} })
	r.TypedJSON = registry.CompileJSON(r.Kind, nil)
	if r.TypedJSON.Len() != 1 {
		t.Fatal("the kind's type was not compiled")
	}
	for _, tc := range []struct{ name, body string }{
		{"whole", splicedBody},
		{"unknown field", `{"metadata":{"name":"a"},"spec":{"nope":1}}`},
		{"duplicate field", `{"metadata":{"name":"a","name":"b"}}`},
		{"other case", `{"Metadata":{"name":"a"}}`},
		{"wrong type", `{"metadata":{"name":1},"spec":{"note":"x"}}`},
		{"bad time", `{"metadata":{"creationTimestamp":"soon"}}`},
		{"syntax error", `{"metadata":{"name":"a"}`},
		{"escaped name", `{"metadata":{"n\u0061me":"a"}}`},
	} {
		for _, trusted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/trusted=%v", tc.name, trusted), func(t *testing.T) {
				got, want := &spliced{}, &spliced{}
				problems, err := r.DecodeJSON(codec.JSON{}, []byte(tc.body), got, trusted)
				var wantProblems []error
				var wantErr error
				if trusted {
					wantErr = codec.JSON{}.DecodeTrusted([]byte(tc.body), want)
				} else {
					wantProblems, wantErr = codec.JSON{}.Decode([]byte(tc.body), want)
				}
				if fmt.Sprint(problems) != fmt.Sprint(wantProblems) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("got %v, %v; want %v, %v", problems, err, wantProblems, wantErr)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("decoded (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestDecodeJSONAllocs checks that a kind's compiled decoder decodes a
// body in fewer than half the allocations of the general decoder.
func TestDecodeJSONAllocs(t *testing.T) {
	r := spliceResource(func() meta.Object { return &spliced{} })
	body := []byte(splicedBody)
	decode := func() {
		if _, err := r.DecodeJSON(codec.JSON{}, body, &spliced{}, false); err != nil {
			t.Fatal(err)
		}
	}
	general := testing.AllocsPerRun(20, decode)
	r.TypedJSON = registry.CompileJSON(r.Kind, nil)
	compiled := testing.AllocsPerRun(20, decode)
	if compiled*2 > general {
		t.Errorf("compiled decoder: %v allocations, general decoder: %v", compiled, general)
	}
}

// TestFormWithoutManagedFieldsTyped checks that the form the kind's
// compiled plan builds is the one decoding the object's encoding gives,
// with and without splicing, and that building it takes fewer
// allocations than the round trip.
func TestFormWithoutManagedFieldsTyped(t *testing.T) {
	for _, splice := range []bool{true, false} {
		t.Run(fmt.Sprintf("splice=%v", splice), func(t *testing.T) {
			r := spliceResource(func() meta.Object { return &spliced{} })
			r.SpliceManagedFields = splice
			obj := &spliced{}
			if _, err := r.DecodeJSON(codec.JSON{}, []byte(splicedBody), obj, false); err != nil {
				t.Fatal(err)
			}
			obj.ResourceVersion = "12"
			roundTrip, pre, err := r.FormWithoutManagedFields(obj)
			if err != nil {
				t.Fatal(err)
			}
			general := testing.AllocsPerRun(20, func() { _, _, _ = r.FormWithoutManagedFields(obj) })
			r.TypedJSON = registry.CompileJSON(r.Kind, nil)
			typed, typedPre, err := r.FormWithoutManagedFields(obj)
			if err != nil || string(typedPre) != string(pre) {
				t.Errorf("typed form %v, %s, %v\nwant %v, %s", typed, typedPre, err, roundTrip, pre)
			} else if diff := cmp.Diff(roundTrip, typed); diff != "" {
				t.Errorf("typed form (-want +got):\n%s", diff)
			}
			if len(obj.ManagedFields) != 1 {
				t.Errorf("the object was left with entries %v", obj.ManagedFields)
			}
			compiled := testing.AllocsPerRun(20, func() { _, _, _ = r.FormWithoutManagedFields(obj) })
			if compiled >= general {
				t.Errorf("typed form: %v allocations, round trip: %v", compiled, general)
			}
		})
	}
}

// TestLiveFormTyped checks that the stored object's form is built from
// the decoded object as decoding its JSON without managedFields gives it,
// in fewer allocations, and leaves the object's entries in place.
func TestLiveFormTyped(t *testing.T) {
	r := spliceResource(func() meta.Object { return &spliced{} })
	old := &spliced{}
	if _, err := r.DecodeJSON(codec.JSON{}, []byte(splicedBody), old, false); err != nil {
		t.Fatal(err)
	}
	old.ResourceVersion, old.UID, old.Generation = "12", "u", 2
	live, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	want, err := patch.DecodeObjectWithoutManagedFields(live)
	if err != nil {
		t.Fatal(err)
	}
	general := testing.AllocsPerRun(20, func() { _, _ = r.LiveForm(old, live) })
	r.TypedJSON = registry.CompileJSON(r.Kind, nil)
	got, err := r.LiveForm(old, live)
	if err != nil {
		t.Errorf("live form: %v", err)
	} else if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("live form (-want +got):\n%s", diff)
	}
	if len(old.ManagedFields) != 1 {
		t.Errorf("the stored object was left with entries %v", old.ManagedFields)
	}
	if typed := testing.AllocsPerRun(20, func() { _, _ = r.LiveForm(old, live) }); typed >= general {
		t.Errorf("typed live form: %v allocations, decoded: %v", typed, general)
	}
}

// TestMarshalJSONMatchesMarshal checks that a kind's compiled plan
// writes what json.Marshal writes, for objects it encodes and those it
// leaves to Marshal (a fieldsV1 with space in it), and that it does
// encode the kind's objects.
func TestMarshalJSONMatchesMarshal(t *testing.T) {
	r := spliceResource(func() meta.Object { return &spliced{} })
	r.TypedJSON = registry.CompileJSON(r.Kind, nil)
	for _, tc := range []struct {
		name, body string
		planned    bool
	}{
		{"whole", splicedBody, true},
		{"escapes", `{"metadata":{"name":"a<b>&\u2028\u00e9\"","labels":{"z":"1","a":"\n"}},"spec":{"note":"\u0000"}}`, true},
		{"empty", `{}`, true},
		{"fieldsV1 with space", `{"metadata":{"managedFields":[{"fieldsV1":{ "f:a" : {} }}]}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &spliced{}
			if err := json.Unmarshal([]byte(tc.body), obj); err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.EncodeJSON(obj)
			if err != nil || string(got) != string(want) {
				t.Errorf("marshalJSON wrote %s, %v; want %s", got, err, want)
			}
			if _, planned := r.TypedJSON.AppendJSON(nil, obj); planned != tc.planned {
				t.Errorf("written by the plan: %v, want %v", planned, tc.planned)
			}
		})
	}
}

// TestDecodeTransientMatchesDecode checks that a write's read of the
// stored object, by the compiled plan with shared strings, decodes what
// the general decode does, for a kind of one version and for each
// version of a kind served in two, for values the plan decodes and
// values it leaves to the general decoder, and that the strings do not
// alias the stored value.
func TestDecodeTransientMatchesDecode(t *testing.T) {
	one := spliceResource(func() meta.Object { return &spliced{} })
	one.TypedJSON = registry.CompileJSON(one.Kind, nil)
	one.JSONCodec = codec.JSON{}
	stor, other := splicedVersions(t)
	for _, r := range []*registry.Resource{stor, other} {
		r.JSONCodec, r.TypedJSON = codec.JSON{}, registry.CompileJSON(r.Kind, r.Versions)
	}
	for _, rc := range []struct {
		name string
		r    *registry.Resource
	}{{"one version", one}, {"storage version", stor}, {"other version", other}} {
		r := rc.r
		for _, tc := range []struct{ name, value string }{
			{"whole", splicedBody},
			{"escapes", `{"apiVersion":"g.example.com/v1","metadata":{"name":"a\u00e9\n","labels":{"k\"":"v"}},"spec":{"note":"x"}}`},
			{"unknown field", `{"apiVersion":"g.example.com/v1","metadata":{"name":"a"},"spec":{"note":"x","nope":1}}`},
		} {
			t.Run(rc.name+"/"+tc.name, func(t *testing.T) {
				kv := &storage.KeyValue{Key: "/k", Value: []byte(tc.value), ModRevision: 7}
				want, err := r.Decode(kv)
				if err != nil {
					t.Fatal(err)
				}
				got, err := r.DecodeTransient(kv)
				if err != nil {
					t.Fatal(err)
				}
				for i := range kv.Value {
					kv.Value[i] = 'x'
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-decode +decodeTransient):\n%s", diff)
				}
			})
		}
	}
}
