package protobuf_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/codec/protobuf"
	"github.com/kapi-dev/kapi/meta"
)

// TestAppendListMatchesEncode checks that a list written from its items'
// encodings is, byte for byte, the encoding of the list of the objects.
func TestAppendListMatchesEncode(t *testing.T) {
	s := protobuf.New()
	two := int32(2)
	objs := []meta.Object{
		&widget{TypeMeta: meta.TypeMeta{Kind: "Widget", APIVersion: "stable.example.com/v1"},
			ObjectMeta: meta.ObjectMeta{Name: "a", ResourceVersion: "7", Labels: map[string]string{"x": "y"}},
			Spec:       widgetSpec{Replicas: &two, Color: "red", Tags: []string{"t"}}},
		&widget{TypeMeta: meta.TypeMeta{Kind: "Widget", APIVersion: "stable.example.com/v1"}, ObjectMeta: meta.ObjectMeta{Name: "b"}},
	}
	left := int64(3)
	for _, lm := range []meta.ListMeta{{ResourceVersion: "9"}, {ResourceVersion: "9", Continue: "tok", RemainingItemCount: &left}, {}} {
		for _, n := range []int{0, 1, 2} {
			l := &meta.List{TypeMeta: meta.TypeMeta{Kind: "WidgetList", APIVersion: "stable.example.com/v1"}, ListMeta: lm, Items: objs[:n]}
			var want bytes.Buffer
			if err := s.Encode(&want, l); err != nil {
				t.Fatal(err)
			}
			items := make([][]byte, n)
			for i, obj := range objs[:n] {
				var b bytes.Buffer
				if err := s.Encode(&b, obj); err != nil {
					t.Fatal(err)
				}
				var err error
				if items[i], err = s.ListItem(b.Bytes()); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.AppendList(nil, l, items)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("%d items, %+v:\n got %x\nwant %x", n, lm, got, want.Bytes())
			}
		}
	}
	if _, err := s.ListItem([]byte("not protobuf")); err == nil {
		t.Error("ListItem of a value without the envelope succeeded")
	}
}

// TestListItemAllocatesNothing checks that reading an item out of its
// envelope, which a list does for every item, does not copy the type's
// strings, and still refuses an encoded body.
func TestListItemAllocatesNothing(t *testing.T) {
	s := protobuf.New()
	var b bytes.Buffer
	obj := &widget{TypeMeta: meta.TypeMeta{Kind: "Widget", APIVersion: "stable.example.com/v1"}, ObjectMeta: meta.ObjectMeta{Name: "a"}}
	if err := s.Encode(&b, obj); err != nil {
		t.Fatal(err)
	}
	enc := b.Bytes()
	if n := testing.AllocsPerRun(100, func() { _, _ = s.ListItem(enc) }); n != 0 {
		t.Errorf("ListItem allocated %v times", n)
	}
	// An envelope whose contentEncoding (field 3) is set is refused.
	encoded := append(bytes.TrimSuffix(enc, []byte{3<<3 | 2, 0, 4<<3 | 2, 0}), 3<<3|2, 4, 'g', 'z', 'i', 'p', 4<<3|2, 0)
	if _, err := s.ListItem(encoded); err == nil || !strings.Contains(err.Error(), "content encoding") {
		t.Errorf("ListItem of a gzip-encoded body: %v", err)
	}
}
