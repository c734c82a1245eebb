package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// widget mirrors a Kubernetes object the way a host's Go type would.
type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            widgetSpec    `json:"spec,omitempty"`
	Status          *widgetStatus `json:"status,omitempty"`
}

type widgetSpec struct {
	Replicas *int32            `json:"replicas,omitempty"`
	Color    string            `json:"color,omitempty"`
	Ports    []widgetPort      `json:"ports,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
	Selector map[string]string `json:"selector,omitempty"`
	Config   map[string]any    `json:"config,omitempty"`
}

type widgetPort struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

type widgetStatus struct {
	ReadyReplicas int32 `json:"readyReplicas"`
}

func strictStrings(errs []error) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func TestJSONMediaTypes(t *testing.T) {
	if got := (JSON{}).MediaType(); got != "application/json" {
		t.Errorf("MediaType() = %q", got)
	}
	if got := (JSON{}).StreamMediaType(); got != "application/json" {
		t.Errorf("StreamMediaType() = %q", got)
	}
	if got := (YAML{}).MediaType(); got != "application/yaml" {
		t.Errorf("YAML MediaType() = %q", got)
	}
	// YAML frames no watch streams, as kube-apiserver offers none in YAML.
	if _, ok := any(YAML{}).(WatchEncoder); ok {
		t.Error("YAML implements WatchEncoder")
	}
}

func TestJSONEncode(t *testing.T) {
	three := int32(3)
	cases := []struct {
		name string
		v    any
		want string
	}{
		{
			name: "object compact with newline",
			v: &widget{
				TypeMeta:   meta.TypeMeta{Kind: "Widget", APIVersion: "stable.example.com/v1"},
				ObjectMeta: meta.ObjectMeta{Name: "foo", Namespace: "default", CreationTimestamp: meta.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 500, time.UTC))},
				Spec:       widgetSpec{Replicas: &three, Color: "blue"},
			},
			want: `{"kind":"Widget","apiVersion":"stable.example.com/v1","metadata":{"name":"foo","namespace":"default","creationTimestamp":"2024-05-06T07:08:09Z"},"spec":{"replicas":3,"color":"blue"}}` + "\n",
		},
		{
			// kube-apiserver encodes with encoding/json's Encoder
			// defaults, which escape <, > and & (and U+2028/U+2029);
			// clients never notice, but the bytes must match.
			name: "html characters escaped as kube-apiserver escapes them",
			v:    map[string]string{"message": `a<b>&c` + "\u2028"},
			want: `{"message":"a\u003cb\u003e\u0026c\u2028"}` + "\n",
		},
		{
			name: "non-ASCII kept as UTF-8",
			v:    map[string]string{"name": "café ☕"},
			want: `{"name":"café ☕"}` + "\n",
		},
		{
			name: "status",
			v:    status.NotFound(meta.GroupResource{Group: "stable.example.com", Resource: "widgets"}, "foo").Status,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.stable.example.com \"foo\" not found","reason":"NotFound","details":{"name":"foo","group":"stable.example.com","kind":"widgets"},"code":404}` + "\n",
		},
		{
			name: "map keys sorted",
			v:    map[string]int{"b": 2, "a": 1, "c": 3},
			want: `{"a":1,"b":2,"c":3}` + "\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := (JSON{}).Encode(&buf, tc.v); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("Encode =\n\t%s\nwant\n\t%s", buf.String(), tc.want)
			}
		})
	}
}

func TestJSONEncodeError(t *testing.T) {
	var buf bytes.Buffer
	if err := (JSON{}).Encode(&buf, map[string]any{"f": func() {}}); err == nil {
		t.Error("encoding a func succeeded")
	}
}

// TestJSONDecodeStrict covers what kube-apiserver's decoder
// (sigs.k8s.io/json's UnmarshalStrict) does: keys match field names
// exactly, unknown and duplicate fields are collected with their full
// paths while the decode goes on, and the last duplicate wins.
func TestJSONDecodeStrict(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		want   widget
		strict []string
	}{
		{
			name: "clean",
			in:   `{"kind":"Widget","apiVersion":"stable.example.com/v1","metadata":{"name":"foo","labels":{"app":"x"}},"spec":{"color":"blue","ports":[{"name":"http","port":80}]}}`,
			want: widget{
				TypeMeta:   meta.TypeMeta{Kind: "Widget", APIVersion: "stable.example.com/v1"},
				ObjectMeta: meta.ObjectMeta{Name: "foo", Labels: map[string]string{"app": "x"}},
				Spec:       widgetSpec{Color: "blue", Ports: []widgetPort{{Name: "http", Port: 80}}},
			},
		},
		{
			// encoding/json would fill spec from "Spec"; Kubernetes does
			// not: the key is unknown.
			name:   "case-mismatched top-level key is unknown",
			in:     `{"Spec":{"color":"blue"}}`,
			strict: []string{`unknown field "Spec"`},
		},
		{
			name:   "case-mismatched nested key is unknown",
			in:     `{"spec":{"Color":"blue","color":"red"}}`,
			want:   widget{Spec: widgetSpec{Color: "red"}},
			strict: []string{`unknown field "spec.Color"`},
		},
		{
			name:   "unknown field with full path, decode goes on",
			in:     `{"metadata":{"name":"foo"},"spec":{"foo":1,"color":"blue"}}`,
			want:   widget{ObjectMeta: meta.ObjectMeta{Name: "foo"}, Spec: widgetSpec{Color: "blue"}},
			strict: []string{`unknown field "spec.foo"`},
		},
		{
			name:   "unknown field inside a list",
			in:     `{"spec":{"ports":[{"name":"a"},{"name":"b","protocol":"TCP"}]}}`,
			want:   widget{Spec: widgetSpec{Ports: []widgetPort{{Name: "a"}, {Name: "b"}}}},
			strict: []string{`unknown field "spec.ports[1].protocol"`},
		},
		{
			name:   "duplicate field, last wins",
			in:     `{"spec":{"color":"blue","color":"red"}}`,
			want:   widget{Spec: widgetSpec{Color: "red"}},
			strict: []string{`duplicate field "spec.color"`},
		},
		{
			name:   "duplicate inline field",
			in:     `{"kind":"A","kind":"Widget"}`,
			want:   widget{TypeMeta: meta.TypeMeta{Kind: "Widget"}},
			strict: []string{`duplicate field "kind"`},
		},
		{
			name:   "duplicate map key",
			in:     `{"metadata":{"labels":{"app":"a","app":"b"}}}`,
			want:   widget{ObjectMeta: meta.ObjectMeta{Labels: map[string]string{"app": "b"}}},
			strict: []string{`duplicate field "metadata.labels.app"`},
		},
		{
			name:   "several, in document order",
			in:     `{"spec":{"x":1,"color":"a","color":"b"},"y":2}`,
			want:   widget{Spec: widgetSpec{Color: "b"}},
			strict: []string{`unknown field "spec.x"`, `duplicate field "spec.color"`, `unknown field "y"`},
		},
		{
			name: "unknown fields under an untyped map are not unknown",
			in:   `{"spec":{"config":{"anything":{"goes":true}}}}`,
			want: widget{Spec: widgetSpec{Config: map[string]any{"anything": map[string]any{"goes": true}}}},
		},
		{
			name: "integers in untyped values are int64, others float64",
			in:   `{"spec":{"config":{"i":1,"neg":-7,"big":9223372036854775807,"huge":9223372036854775808,"f":1.5,"e":1e3,"one":1.0,"list":[1,2.5]}}}`,
			want: widget{Spec: widgetSpec{Config: map[string]any{
				"i": int64(1), "neg": int64(-7), "big": int64(9223372036854775807), "huge": float64(9223372036854775808),
				"f": 1.5, "e": float64(1000), "one": float64(1), "list": []any{int64(1), 2.5},
			}}},
		},
		{
			name: "null leaves fields unset",
			in:   `{"metadata":null,"spec":{"replicas":null,"tags":null}}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got widget
			strict, err := (JSON{}).Decode([]byte(tc.in), &got)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tc.strict, strictStrings(strict), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("strict errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
			// Stored values are decoded to the same object, unchecked.
			var trusted widget
			if err := (JSON{}).DecodeTrusted([]byte(tc.in), &trusted); err != nil {
				t.Fatalf("DecodeTrusted: %v", err)
			}
			if diff := cmp.Diff(tc.want, trusted); diff != "" {
				t.Errorf("DecodeTrusted decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJSONDecodeMap checks decoding into map[string]any: there are no
// unknown fields, keys keep their case, duplicates are still reported.
func TestJSONDecodeMap(t *testing.T) {
	var got map[string]any
	strict, err := (JSON{}).Decode([]byte(`{"Spec":{"n":1},"spec":{"n":2,"n":3}}`), &got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`duplicate field "spec.n"`}, strictStrings(strict)); diff != "" {
		t.Errorf("strict (-want +got):\n%s", diff)
	}
	want := map[string]any{"Spec": map[string]any{"n": int64(1)}, "spec": map[string]any{"n": int64(3)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}

	var v any
	if _, err := (JSON{}).Decode([]byte(`[1, "a", null, true, 2.5]`), &v); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{int64(1), "a", nil, true, 2.5}, v); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}

// TestJSONDecodeErrors covers hard errors: malformed JSON and values of
// the wrong type. Strict errors are not returned with them.
func TestJSONDecodeErrors(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		errPart string
	}{
		{"empty", ``, "unexpected end of JSON input"},
		{"truncated", `{"spec":{"color":"blue"`, "unexpected end of JSON input"},
		{"trailing garbage", `{} x`, "invalid character"},
		{"not json", `spec: {}`, "invalid character"},
		{"string for int", `{"spec":{"replicas":"3"}}`, "cannot unmarshal string into Go struct field"},
		{"float for int", `{"spec":{"replicas":1.5}}`, "cannot unmarshal number 1.5"},
		{"overflow", `{"spec":{"replicas":3000000000}}`, "cannot unmarshal number 3000000000"},
		{"list for object", `{"spec":[]}`, "cannot unmarshal array"},
		{"object for string", `{"metadata":{"name":{}}}`, "cannot unmarshal object"},
		{"wrong type with unknown field too", `{"spec":{"foo":1,"replicas":"x"}}`, "cannot unmarshal string"},
		{"bad time", `{"metadata":{"creationTimestamp":"yesterday"}}`, "cannot parse"},
		{"top-level list", `[]`, "cannot unmarshal array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var w widget
			strict, err := (JSON{}).Decode([]byte(tc.in), &w)
			if err == nil {
				t.Fatalf("Decode(%s) succeeded: %+v", tc.in, w)
			}
			if !strings.Contains(err.Error(), tc.errPart) {
				t.Errorf("error %q does not contain %q", err, tc.errPart)
			}
			if strict != nil {
				t.Errorf("strict errors %q alongside a hard error", strictStrings(strict))
			}
		})
	}
}

// TestJSONRoundTrip encodes and decodes a full object.
func TestJSONRoundTrip(t *testing.T) {
	three := int32(3)
	grace := int64(30)
	ts := meta.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	in := widget{
		TypeMeta: meta.TypeMeta{Kind: "Widget", APIVersion: "stable.example.com/v1"},
		ObjectMeta: meta.ObjectMeta{
			Name: "foo", Namespace: "default", UID: "1234", ResourceVersion: "42", Generation: 2,
			CreationTimestamp: ts, DeletionTimestamp: &ts, DeletionGracePeriodSeconds: &grace,
			Labels: map[string]string{"app": "x"}, Annotations: map[string]string{"note": "<b>"},
			Finalizers: []string{"example.com/f"},
			ManagedFields: []meta.ManagedFieldsEntry{{
				Manager: "kubectl", Operation: meta.ManagedFieldsOperationApply, APIVersion: "stable.example.com/v1",
				Time: &ts, FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:spec":{"f:color":{}}}`)},
			}},
		},
		Spec: widgetSpec{
			Replicas: &three, Color: "blue", Ports: []widgetPort{{Name: "http", Port: 80}}, Tags: []string{"a"},
			Selector: map[string]string{"app": "x"}, Config: map[string]any{"n": int64(7), "f": 0.5, "s": "x", "l": []any{true}},
		},
		Status: &widgetStatus{ReadyReplicas: 1},
	}
	for _, s := range []Serializer{JSON{}, YAML{}} {
		t.Run(s.MediaType(), func(t *testing.T) {
			var buf bytes.Buffer
			if err := s.Encode(&buf, &in); err != nil {
				t.Fatal(err)
			}
			var out widget
			strict, err := s.Decode(buf.Bytes(), &out)
			if err != nil || len(strict) != 0 {
				t.Fatalf("Decode: %v %q\n%s", err, strictStrings(strict), buf.Bytes())
			}
			if diff := cmp.Diff(in, out); diff != "" {
				t.Errorf("round trip (-want +got):\n%s\n%s", diff, buf.Bytes())
			}
		})
	}
}

func TestYAMLEncode(t *testing.T) {
	three := int32(3)
	w := &widget{
		TypeMeta:   meta.TypeMeta{Kind: "Widget", APIVersion: "stable.example.com/v1"},
		ObjectMeta: meta.ObjectMeta{Name: "foo", Labels: map[string]string{"on": "yes"}},
		Spec:       widgetSpec{Replicas: &three, Color: "<blue>", Tags: []string{"1", "y", ""}},
	}
	var buf bytes.Buffer
	if err := (YAML{}).Encode(&buf, w); err != nil {
		t.Fatal(err)
	}
	// Keys sorted, two-space indent, strings that YAML 1.1 would read as
	// other types quoted, and the zero creationTimestamp as null, as
	// kube-apiserver writes it.
	want := `apiVersion: stable.example.com/v1
kind: Widget
metadata:
  labels:
    "on": "yes"
  name: foo
spec:
  color: <blue>
  replicas: 3
  tags:
  - "1"
  - "y"
  - ""
`
	if buf.String() != want {
		t.Errorf("Encode =\n%s\nwant\n%s", buf.String(), want)
	}
	if err := (YAML{}).Encode(&buf, map[string]any{"f": func() {}}); err == nil {
		t.Error("encoding a func succeeded")
	}
}

func TestYAMLDecode(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		want   widget
		strict []string
	}{
		{
			name: "clean",
			in:   "kind: Widget\nmetadata:\n  name: foo\n  labels:\n    app: x\nspec:\n  color: blue\n  ports:\n  - name: http\n    port: 80\n",
			want: widget{
				TypeMeta:   meta.TypeMeta{Kind: "Widget"},
				ObjectMeta: meta.ObjectMeta{Name: "foo", Labels: map[string]string{"app": "x"}},
				Spec:       widgetSpec{Color: "blue", Ports: []widgetPort{{Name: "http", Port: 80}}},
			},
		},
		{
			name: "json is yaml",
			in:   `{"metadata":{"name":"foo"},"spec":{"replicas":null}}`,
			want: widget{ObjectMeta: meta.ObjectMeta{Name: "foo"}},
		},
		{
			name:   "unknown field with full path",
			in:     "spec:\n  color: blue\n  shade: dark\n",
			want:   widget{Spec: widgetSpec{Color: "blue"}},
			strict: []string{`unknown field "spec.shade"`},
		},
		{
			name:   "case-mismatched key is unknown",
			in:     "spec:\n  Color: blue\n",
			strict: []string{`unknown field "spec.Color"`},
		},
		{
			// The duplicate is a strict error; the decode goes on with
			// the last value, as for JSON.
			name:   "duplicate key",
			in:     "spec:\n  color: blue\n  color: red\n",
			want:   widget{Spec: widgetSpec{Color: "red"}},
			strict: []string{"yaml: unmarshal errors:\n  line 3: key \"color\" already set in map"},
		},
		{
			name: "integers are int64",
			in:   "spec:\n  config:\n    i: 1\n    f: 1.5\n    s: \"1\"\n    b: true\n",
			want: widget{Spec: widgetSpec{Config: map[string]any{"i": int64(1), "f": 1.5, "s": "1", "b": true}}},
		},
		{
			name: "empty document",
			in:   "",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got widget
			strict, err := (YAML{}).Decode([]byte(tc.in), &got)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tc.strict, strictStrings(strict), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("strict errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestYAMLDecodeErrors(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		errPart string
	}{
		{"unclosed flow sequence", "spec:\n  tags: [a, b\n", "error converting YAML to JSON"},
		{"bad indentation", "spec:\n  color: a\n   shade: b\n", "error converting YAML to JSON"},
		{"tab indentation", "spec:\n\tcolor: a\n", "error converting YAML to JSON"},
		{"wrong type", "spec:\n  replicas: three\n", "cannot unmarshal string"},
		{"list for object", "- a\n- b\n", "cannot unmarshal array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var w widget
			strict, err := (YAML{}).Decode([]byte(tc.in), &w)
			if err == nil {
				t.Fatalf("Decode succeeded: %+v", w)
			}
			if !strings.Contains(err.Error(), tc.errPart) {
				t.Errorf("error %q does not contain %q", err, tc.errPart)
			}
			if strict != nil {
				t.Errorf("strict errors %q alongside a hard error", strictStrings(strict))
			}
		})
	}
}

// TestYAMLDuplicateAndUnknown checks that a duplicate key and an unknown
// field in the same document are both reported.
func TestYAMLDuplicateAndUnknown(t *testing.T) {
	var w widget
	strict, err := (YAML{}).Decode([]byte("spec:\n  color: a\n  color: b\n  shade: c\n"), &w)
	if err != nil {
		t.Fatal(err)
	}
	s := strictStrings(strict)
	if len(s) != 2 || !strings.Contains(s[0], `key "color" already set`) || s[1] != `unknown field "spec.shade"` {
		t.Errorf("strict = %q", s)
	}
	if w.Spec.Color != "b" {
		t.Errorf("color = %q, want the last value", w.Spec.Color)
	}
}

func TestAppendEvent(t *testing.T) {
	cases := []struct {
		name      string
		eventType string
		object    string
		want      string
	}{
		{"added", meta.Added, `{"kind":"Widget","metadata":{"name":"foo"}}`, `{"type":"ADDED","object":{"kind":"Widget","metadata":{"name":"foo"}}}` + "\n"},
		{"trailing newline not duplicated", meta.Modified, `{"kind":"Widget"}` + "\n", `{"type":"MODIFIED","object":{"kind":"Widget"}}` + "\n"},
		{"several trailing newlines", meta.Deleted, "{}\n\n", `{"type":"DELETED","object":{}}` + "\n"},
		{"bookmark", meta.Bookmark, `{"kind":"Widget","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}`,
			`{"type":"BOOKMARK","object":{"kind":"Widget","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := (JSON{}).AppendEvent(nil, tc.eventType, []byte(tc.object))
			if string(got) != tc.want {
				t.Errorf("AppendEvent =\n\t%q\nwant\n\t%q", got, tc.want)
			}
			var ev meta.WatchEvent
			if err := json.Unmarshal(got, &ev); err != nil {
				t.Fatalf("framed event is not JSON: %v", err)
			}
			if ev.Type != tc.eventType {
				t.Errorf("type = %q", ev.Type)
			}
		})
	}
}

// TestAppendEventStream frames an error event from an encoded Status and
// appends several events to one buffer, as a watch does; each line is one
// event that decodes as kube-apiserver's framing does.
func TestAppendEventStream(t *testing.T) {
	var obj bytes.Buffer
	if err := (JSON{}).Encode(&obj, status.Expired("too old resource version: 1 (5)").Status); err != nil {
		t.Fatal(err)
	}
	prefix := []byte("existing")
	buf := (JSON{}).AppendEvent(prefix, meta.Added, []byte(`{"a":1}`))
	buf = (JSON{}).AppendEvent(buf, meta.Error, obj.Bytes())
	want := `existing{"type":"ADDED","object":{"a":1}}` + "\n" +
		`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}` + "\n"
	if string(buf) != want {
		t.Errorf("stream =\n%s\nwant\n%s", buf, want)
	}

	dec := json.NewDecoder(bytes.NewReader(buf[len("existing"):]))
	var types []string
	for dec.More() {
		var ev meta.WatchEvent
		if err := dec.Decode(&ev); err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type)
	}
	if diff := cmp.Diff([]string{meta.Added, meta.Error}, types); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
}

// TestAppendEventNoAlloc checks that appending into a buffer with room
// does not allocate: the framing is meant for the watch hot path.
func TestAppendEventNoAlloc(t *testing.T) {
	obj := []byte(`{"kind":"Widget","metadata":{"name":"foo"}}` + "\n")
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		buf = (JSON{}).AppendEvent(buf[:0], meta.Modified, obj)
	})
	if allocs != 0 {
		t.Errorf("AppendEvent allocated %v times", allocs)
	}
}

// TestDecodeErrorsAreNotStatus checks that decode errors are plain errors:
// turning them into a 400 is the caller's business.
func TestDecodeErrorsAreNotStatus(t *testing.T) {
	var w widget
	_, err := (JSON{}).Decode([]byte(`{`), &w)
	var se *status.Error
	if err == nil || errors.As(err, &se) {
		t.Errorf("err = %v, want a plain error", err)
	}
}
