package coordinationv1_test

import (
	"reflect"
	"testing"

	k8scoordinationv1 "k8s.io/api/coordination/v1"

	"github.com/kapi-dev/kapi/examples/coordinationv1"
)

// TestMirrorsK8sLease holds Lease and LeaseSpec in step with k8s.io/api's:
// the same fields with the same JSON and protobuf tags.
func TestMirrorsK8sLease(t *testing.T) {
	for _, pair := range [][2]reflect.Type{
		{reflect.TypeOf(coordinationv1.Lease{}), reflect.TypeOf(k8scoordinationv1.Lease{})},
		{reflect.TypeOf(coordinationv1.LeaseSpec{}), reflect.TypeOf(k8scoordinationv1.LeaseSpec{})},
	} {
		ours, theirs := pair[0], pair[1]
		if ours.NumField() != theirs.NumField() {
			t.Fatalf("%v: %d fields, k8s.io/api has %d", ours, ours.NumField(), theirs.NumField())
		}
		for i := 0; i < theirs.NumField(); i++ {
			want := theirs.Field(i)
			got, ok := ours.FieldByName(want.Name)
			switch {
			case !ok:
				t.Errorf("%v.%s missing", ours, want.Name)
			case want.Anonymous && got.Tag.Get("protobuf") != want.Tag.Get("protobuf"):
				t.Errorf("%v.%s: protobuf tag %q, want %q", ours, want.Name, got.Tag.Get("protobuf"), want.Tag.Get("protobuf"))
			case !want.Anonymous && (got.Tag != want.Tag || got.Type.Kind() != want.Type.Kind()):
				t.Errorf("%v.%s: %v `%s`, want %v `%s`", ours, want.Name, got.Type, got.Tag, want.Type, want.Tag)
			}
		}
	}
}
