package protobuf_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/codec/protobuf"
)

// words is a named []string that travels as a message {items=1}, as
// authentication's ExtraValue does.
type words []string

type wordsProxy struct {
	Items []string `protobuf:"bytes,1,rep,name=items"`
}

func (*words) NewProtobufProxy() any { return &wordsProxy{} }

func (w *words) ToProtobufProxy() (any, error) {
	if *w == nil {
		return nil, nil
	}
	return &wordsProxy{Items: *w}, nil
}

func (w *words) FromProtobufProxy(p any) error {
	*w = append(words{}, p.(*wordsProxy).Items...)
	return nil
}

// doc is JSON kept as it was written that travels as a typed message, as
// apiextensions' JSONSchemaProps does.
type doc []byte

type docProxy struct {
	Title string `json:"title,omitempty" protobuf:"bytes,1,opt,name=title"`
	Count int64  `json:"count,omitempty" protobuf:"varint,2,opt,name=count"`
	Inner *doc   `json:"inner,omitempty" protobuf:"bytes,3,opt,name=inner"`
}

func (*doc) NewProtobufProxy() any { return &docProxy{} }

func (d *doc) ToProtobufProxy() (any, error) {
	if len(*d) == 0 {
		return nil, nil
	}
	p := &docProxy{}
	if err := json.Unmarshal(*d, p); err != nil {
		return nil, err
	}
	return p, nil
}

func (d *doc) FromProtobufProxy(p any) error {
	b, err := json.Marshal(p)
	*d = b
	return err
}

func (d doc) MarshalJSON() ([]byte, error) { return d, nil }

func (d *doc) UnmarshalJSON(b []byte) error {
	*d = append(doc{}, b...)
	return nil
}

type withProxies struct {
	Doc   doc              `protobuf:"bytes,1,opt,name=doc"`
	PDoc  *doc             `protobuf:"bytes,2,opt,name=pDoc"`
	Docs  []doc            `protobuf:"bytes,3,rep,name=docs"`
	Extra map[string]words `protobuf:"bytes,4,rep,name=extra"`
	Words words            `protobuf:"bytes,5,opt,name=words"`
}

func TestProxyFields(t *testing.T) {
	s := protobuf.New()
	empty := doc(nil)
	cases := []struct {
		name string
		v    *withProxies
		want string // hex of the raw field
	}{
		{"nothing to write leaves a singular field out", &withProxies{}, ""},
		{"a proxy is its message", &withProxies{Doc: doc(`{"count":2,"title":"t"}`)}, "0a05 0a0174 1002"},
		{"a nested proxied value", &withProxies{Doc: doc(`{"inner":{"title":"i"}}`)}, "0a0b 0a00 1000 1a05 0a0169 1000"},
		{"a pointer to nothing is an empty message", &withProxies{PDoc: &empty}, "1200"},
		{"list elements with nothing are empty messages", &withProxies{Docs: []doc{nil, doc(`{"title":"x"}`)}}, "1a00 1a05 0a0178 1000"},
		{"map values are messages, empty ones too", &withProxies{Extra: map[string]words{"b": {"x", ""}, "a": {}}},
			"2205 0a0161 1200 220a 0a0162 1205 0a0178 0a00"},
		{"a named slice as a message", &withProxies{Words: words{"w"}}, "2a03 0a0177"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := encode(t, s, c.v)
			if got, want := body(t, data), hexOf(c.want); !bytes.Equal(got, want) {
				t.Errorf("got % x, want % x", got, want)
			}
			// An empty message reads as a value with every field
			// zero, which then writes its zero scalars, as generated
			// code reads and writes it: stable from there on.
			once := reencode(t, s, data)
			if twice := reencode(t, s, once); !bytes.Equal(twice, once) {
				t.Errorf("re-encoding differs:\n% x\n% x", twice, once)
			}
		})
	}
}

func reencode(t *testing.T, s *protobuf.Serializer, data []byte) []byte {
	t.Helper()
	var back withProxies
	if _, err := s.Decode(data, &back); err != nil {
		t.Fatal(err)
	}
	return encode(t, s, &back)
}

func TestProxyDecode(t *testing.T) {
	s := protobuf.New()
	// doc {title "a"}, then doc {count 3}: the second occurrence merges
	// into the first; extra {"k": {items "v"}}.
	data := envelope(hexOf("0a03 0a0161 0a02 1003 2208 0a016b 1203 0a0176"))
	var got withProxies
	if _, err := s.Decode(data, &got); err != nil {
		t.Fatal(err)
	}
	if string(got.Doc) != `{"title":"a","count":3}` {
		t.Errorf("got %s %v", got.Doc, got.Extra)
	}
	if diff := cmp.Diff(map[string]words{"k": {"v"}}, got.Extra); diff != "" {
		t.Errorf("Extra (-want +got):\n%s", diff)
	}
}

// badProxy returns a proxy of the wrong type.
type badProxy []byte

func (*badProxy) NewProtobufProxy() any         { return &wordsProxy{} }
func (*badProxy) ToProtobufProxy() (any, error) { return &docProxy{}, nil }
func (*badProxy) FromProtobufProxy(any) error   { return errors.New("refused") }

type notStructProxy []byte

func (*notStructProxy) NewProtobufProxy() any         { return "x" }
func (*notStructProxy) ToProtobufProxy() (any, error) { return nil, nil }
func (*notStructProxy) FromProtobufProxy(any) error   { return nil }

func TestProxyErrors(t *testing.T) {
	s := protobuf.New()
	type withBad struct {
		B badProxy `protobuf:"bytes,1,opt,name=b"`
	}
	type withNotStruct struct {
		N notStructProxy `protobuf:"bytes,1,opt,name=n"`
	}
	if s.Supports(reflect.TypeOf(&withNotStruct{})) {
		t.Error("a proxy that is not a struct is supported")
	}
	if !s.Supports(reflect.TypeOf(&withProxies{})) {
		t.Error("proxied fields are not supported")
	}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"invalid JSON", &withProxies{Doc: doc(`{`)}, "unexpected end of JSON input"},
		{"wrong proxy type", &withBad{B: badProxy("x")}, "want *protobuf_test.wordsProxy"},
	}
	for _, c := range cases {
		err := s.Encode(&bytes.Buffer{}, c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Encode = %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if _, err := s.Decode(envelope(hexOf("0a00")), &withBad{}); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("Decode = %v, want the proxy's refusal", err)
	}
}
