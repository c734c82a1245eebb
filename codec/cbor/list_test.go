package cbor

import (
	"bytes"
	"testing"

	"github.com/kapi-dev/kapi/meta"
)

type listed struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            sample `json:"spec"`
}

// TestAppendListMatchesEncode checks that a list written from its items'
// encodings is, byte for byte, the encoding of the list of the objects.
func TestAppendListMatchesEncode(t *testing.T) {
	var s Serializer
	objs := []meta.Object{
		&listed{TypeMeta: meta.TypeMeta{Kind: "Thing", APIVersion: "x/v1"}, ObjectMeta: meta.ObjectMeta{Name: "a", ResourceVersion: "7"},
			Spec: sample{Name: "n", Count: 2, Tags: []string{"t"}}},
		&meta.Unstructured{TypeMeta: meta.TypeMeta{Kind: "Thing", APIVersion: "x/v1"}, ObjectMeta: meta.ObjectMeta{Name: "b"},
			Content: map[string]any{"spec": map[string]any{"n": int64(1), "f": 1.0}}},
	}
	left := int64(3)
	for _, lm := range []meta.ListMeta{{ResourceVersion: "9"}, {Continue: "tok", RemainingItemCount: &left}} {
		for _, n := range []int{0, 1, 2} {
			l := &meta.List{TypeMeta: meta.TypeMeta{Kind: "ThingList", APIVersion: "x/v1"}, ListMeta: lm, Items: objs[:n]}
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
	if _, err := s.ListItem([]byte{0xa0}); err == nil {
		t.Error("ListItem of a value without the self-described tag succeeded")
	}
}
