package codec

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// fuzzObject mirrors a Kubernetes object with the field types hosts use:
// TypeMeta and ObjectMeta from kapi's meta package (times, pointers,
// maps, lists of structs, raw managed fields) and a spec of ints, floats,
// strings, bools, lists and maps.
type fuzzObject struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            fuzzSpec    `json:"spec,omitempty"`
	Status          *fuzzStatus `json:"status,omitempty"`
}

type fuzzSpec struct {
	Replicas   *int32              `json:"replicas,omitempty"`
	Size       int64               `json:"size"`
	Port       uint16              `json:"port,omitempty"`
	Ratio      float64             `json:"ratio,omitempty"`
	Paused     bool                `json:"paused,omitempty"`
	Color      string              `json:"color,omitempty"`
	Tags       []string            `json:"tags,omitempty"`
	Ports      []widgetPort        `json:"ports,omitempty"`
	Selector   map[string]string   `json:"selector,omitempty"`
	Matrix     [][]int             `json:"matrix,omitempty"`
	Groups     map[string][]string `json:"groups,omitempty"`
	Template   *fuzzSpec           `json:"template,omitempty"`
	Config     map[string]any      `json:"config,omitempty"`
	Conditions []fuzzCondition     `json:"conditions,omitempty"`
}

type fuzzCondition struct {
	Type               string     `json:"type"`
	Status             string     `json:"status"`
	LastTransitionTime meta.Time  `json:"lastTransitionTime,omitempty"`
	ObservedGeneration int64      `json:"observedGeneration,omitempty"`
	Since              *meta.Time `json:"since,omitempty"`
}

type fuzzStatus struct {
	ReadyReplicas int32  `json:"readyReplicas"`
	Phase         string `json:"phase,omitempty"`
}

var fuzzSeeds = []string{
	``,
	`{}`,
	`null`,
	`[]`,
	`{"kind":"Widget","apiVersion":"stable.example.com/v1","metadata":{"name":"foo","namespace":"default","labels":{"app":"x"},"annotations":{"a":"<b>&"},"creationTimestamp":"2024-05-06T07:08:09Z","deletionTimestamp":"2024-05-06T07:08:09.5+02:00","deletionGracePeriodSeconds":30,"finalizers":["f"],"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u","controller":true}],"managedFields":[{"manager":"kubectl","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{"f:spec" : {"f:color":{}}}}]},"spec":{"replicas":3,"size":-9223372036854775808,"port":65535,"ratio":0.25,"paused":true,"color":"blue","tags":["a",""],"ports":[{"name":"http","port":80}],"selector":{"app":"x"},"matrix":[[1,2],[]],"groups":{"g":["a"]},"template":{"size":1},"config":{"i":1,"f":1.5,"big":9223372036854775808,"n":null,"l":[1,"a",true,{"x":{}}]},"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z"}]},"status":{"readyReplicas":1}}`,
	`{"spec":{"color":"a","color":"b"},"Spec":{},"x":1}`,
	`{"spec":{"replicas":"3"}}`,
	`{"spec":{"config":{"z":-0.0,"e":1e400}}}`,
	`{"metadata":{"creationTimestamp":"9999-12-31T23:59:59-01:00"}}`,
	`{"spec":{"color":"\ud800\u2028\u0000"}}`,
	"kind: Widget\nmetadata:\n  name: foo\n  labels:\n    app: x\nspec:\n  replicas: 3\n  tags: [a, b]\n  config:\n    yes: no\n    '1': 1.0\n",
	"spec:\n  color: a\n  color: b\n",
	"a: &x {b: *x}\n",
	"spec: {tags: [a, b\n",
	"- 1\n- 2\n",
	"spec:\n  config:\n    ? [a, b]\n    : c\n",
	"---\nspec: {}\n---\nspec: {size: 2}\n",
}

// FuzzJSONDecode decodes arbitrary bytes as JSON into a typed object and
// into map[string]any. It must never panic; and when the decode succeeds
// with no strict errors, the value must survive encoding: see
// checkRoundTrip.
func FuzzJSONDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRoundTrip[fuzzObject](t, JSON{}, data)
		checkRoundTrip[map[string]any](t, JSON{}, data)
	})
}

// FuzzYAMLDecode is FuzzJSONDecode for YAML.
func FuzzYAMLDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRoundTrip[fuzzObject](t, YAML{}, data)
		checkRoundTrip[map[string]any](t, YAML{}, data)
	})
}

// checkRoundTrip decodes data into a T (v1). When that succeeds with no
// strict errors:
//
//   - the serializer's encoding of v1 decodes again (v2) with no error and
//     no strict error: kapi can read whatever it writes;
//   - v1 and v2 encode to the same bytes: nothing the encoding shows was
//     lost by decoding it;
//   - encoding v2 and decoding it again gives a value reflect.DeepEqual to
//     v2: after one trip, encoding is lossless.
//
// v1 and v2 are not compared with DeepEqual directly: some differences are
// by design and shared with Kubernetes, which the bytes comparison above
// sees through — an empty list or map under omitempty comes back nil,
// sub-second times are written to the second, a float with an integral
// value in an untyped field (1.0) comes back as int64, and raw managed
// fields are compacted.
func checkRoundTrip[T any](t *testing.T, s Serializer, data []byte) {
	var v1 T
	strict, err := s.Decode(data, &v1)
	if err != nil || len(strict) > 0 {
		return
	}
	e1, ok := encodeOrSkip(t, s, &v1)
	if !ok {
		return
	}
	var v2 T
	strict, err = s.Decode(e1, &v2)
	if err != nil || len(strict) > 0 {
		t.Fatalf("%s: decoding our own encoding into %T failed: %v %q\ninput: %q\nencoded: %q", s.MediaType(), v1, err, strictStrings(strict), data, e1)
	}
	e2, ok := encodeOrSkip(t, s, &v2)
	if !ok {
		t.Fatalf("%s: encoding a decoded %T failed\nencoded: %q", s.MediaType(), v2, e1)
	}
	if !bytes.Equal(e1, e2) && !sameValue(s, e1, e2) {
		t.Fatalf("%s: %T changed in a round trip\ninput: %q\nfirst:  %q\nsecond: %q", s.MediaType(), v1, data, e1, e2)
	}
	var v3 T
	strict, err = s.Decode(e2, &v3)
	if err != nil || len(strict) > 0 {
		t.Fatalf("%s: second decode failed: %v %q\nencoded: %q", s.MediaType(), err, strictStrings(strict), e2)
	}
	if !reflect.DeepEqual(v2, v3) {
		// Fuzzed types may hold unexported fields: the difference shows
		// them too.
		all := cmp.Exporter(func(reflect.Type) bool { return true })
		t.Fatalf("%s: %T not equal after a second round trip\nencoded: %q\n(-first +second):\n%s", s.MediaType(), v2, e2, cmp.Diff(v2, v3, all))
	}
}

// encodeOrSkip encodes v. Some decoded values cannot be encoded, and those
// are skipped: a time whose year leaves 0000-9999 after conversion to UTC
// (meta.Time's MarshalJSON writes it, but RFC 3339 cannot carry it, as with
// metav1.Time).
func encodeOrSkip(t *testing.T, s Serializer, v any) ([]byte, bool) {
	t.Helper()
	if hasOutOfRangeTime(reflect.ValueOf(v)) {
		return nil, false
	}
	var buf bytes.Buffer
	if err := s.Encode(&buf, v); err != nil {
		t.Fatalf("%s: encoding a decoded %T failed: %v", s.MediaType(), v, err)
	}
	return buf.Bytes(), true
}

var timeType = reflect.TypeOf(meta.Time{})

func hasOutOfRangeTime(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && hasOutOfRangeTime(v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			tm := v.Interface().(meta.Time)
			y := tm.UTC().Year()
			return !tm.IsZero() && (y < 0 || y > 9999)
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && hasOutOfRangeTime(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if hasOutOfRangeTime(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if hasOutOfRangeTime(it.Value()) {
				return true
			}
		}
	}
	return false
}

// sameValue reports whether two encodings hold the same untyped value.
// It forgives one textual difference: a float -0 in an untyped field is
// written as -0, which reads back as the integer 0 and is then written as
// 0. sigs.k8s.io/json, and so kube-apiserver, do the same.
func sameValue(s Serializer, a, b []byte) bool {
	var va, vb any
	if _, err := s.Decode(a, &va); err != nil {
		return false
	}
	if _, err := s.Decode(b, &vb); err != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// FuzzParseAccept parses arbitrary Accept headers and negotiates with
// them. Nothing may panic; entries come out ordered, with q in [0, 1], no
// q parameter and a type with a subtype; Negotiate either picks a
// registered serializer or answers 406.
func FuzzParseAccept(f *testing.F) {
	for _, s := range []string{
		"", "*", "*/*", "application/*", "application/json", kubectlTableAccept, discoveryAccept, clientGoProtoAccept,
		"text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2",
		`application/json;profile="a,b";q=0.5, application/yaml;q=0`,
		`application/json;p="`, "application/json;q=NaN", "application/json;q=1e-400", ",;=/\"",
	} {
		f.Add(s)
	}
	r := newTestRegistry()
	f.Fuzz(func(t *testing.T, header string) {
		entries := ParseAccept(header)
		for i, e := range entries {
			if math.IsNaN(e.Q) || e.Q < 0 || e.Q > 1 {
				t.Errorf("entry %d: q = %v", i, e.Q)
			}
			if _, ok := e.Params["q"]; ok {
				t.Errorf("entry %d keeps its q parameter", i)
			}
			if !strings.Contains(e.Type, "/") {
				t.Errorf("entry %d: type %q has no subtype", i, e.Type)
			}
			if i > 0 {
				p := entries[i-1]
				if p.Q < e.Q || (p.Q == e.Q && specificity(p.Type) < specificity(e.Type)) {
					t.Errorf("entries %d and %d out of order: %v, %v", i-1, i, p, e)
				}
			}
		}
		s, mt, err := r.Negotiate(header, nil)
		if err != nil {
			if s != nil || !status.IsNotAcceptable(err) {
				t.Errorf("Negotiate(%q) = %v, %v", header, s, err)
			}
		} else if got, ok := r.Lookup(mt.Type); !ok || got != s {
			t.Errorf("Negotiate(%q) = %v for type %q", header, s, mt.Type)
		}
		_, _, _ = r.Negotiate(header, tableFilter)
		_, _, _ = r.ForContentType(header)
	})
}
