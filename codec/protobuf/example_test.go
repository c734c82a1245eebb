package protobuf_test

import (
	"bytes"
	"fmt"
	"reflect"

	"github.com/kapi-dev/kapi/codec/protobuf"
	"github.com/kapi-dev/kapi/meta"
)

// A kind is encoded from its protobuf tags; the envelope carries its kind
// and apiVersion.
func Example() {
	type GadgetSpec struct {
		Owner string `json:"owner,omitempty" protobuf:"bytes,1,opt,name=owner"`
		Level int32  `json:"level,omitempty" protobuf:"varint,2,opt,name=level"`
	}
	type Gadget struct {
		meta.TypeMeta   `json:",inline"`
		meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
		Spec            GadgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	}
	s := protobuf.New()
	in := &Gadget{TypeMeta: meta.TypeMeta{Kind: "Gadget", APIVersion: "stable.example.com/v1"},
		ObjectMeta: meta.ObjectMeta{Name: "g1"}, Spec: GadgetSpec{Owner: "ana", Level: 3}}
	var buf bytes.Buffer
	if err := s.Encode(&buf, in); err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", buf.Bytes()[:4])

	var out Gadget
	if _, err := s.Decode(buf.Bytes(), &out); err != nil {
		panic(err)
	}
	fmt.Println(out.APIVersion, out.Kind, out.Name, out.Spec.Owner, out.Spec.Level)

	// A kind with untagged fields has no protobuf form.
	fmt.Println(s.Supports(reflect.TypeOf(&meta.Unstructured{})))
	// Output:
	// "k8s\x00"
	// stable.example.com/v1 Gadget g1 ana 3
	// false
}

// A watch frame is a 4-byte length and a WatchEvent around the already
// encoded object.
func ExampleSerializer_AppendEvent() {
	s := protobuf.New()
	var obj bytes.Buffer
	if err := s.Encode(&obj, &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Code: 410}); err != nil {
		panic(err)
	}
	frame := s.AppendEvent(nil, meta.Error, obj.Bytes())
	fmt.Println(len(frame)-4 == int(frame[3]), s.StreamMediaType())
	// Output: true application/vnd.kubernetes.protobuf;stream=watch
}
