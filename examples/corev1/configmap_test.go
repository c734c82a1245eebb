package corev1_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	k8scorev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/examples/corev1"
	"github.com/kapi-dev/kapi/meta"
)

// TestMirrorsK8sConfigMap holds ConfigMap in step with k8s.io/api's: the
// same fields with the same JSON and protobuf tags.
func TestMirrorsK8sConfigMap(t *testing.T) {
	ours, theirs := reflect.TypeOf(corev1.ConfigMap{}), reflect.TypeOf(k8scorev1.ConfigMap{})
	if ours.NumField() != theirs.NumField() {
		t.Fatalf("%d fields, k8s.io/api has %d", ours.NumField(), theirs.NumField())
	}
	for i := 0; i < theirs.NumField(); i++ {
		want := theirs.Field(i)
		got, ok := ours.FieldByName(want.Name)
		if !ok {
			t.Errorf("field %s missing", want.Name)
			continue
		}
		if want.Anonymous { // TypeMeta and ObjectMeta: kapi's own, same wire form
			if got.Tag.Get("protobuf") != want.Tag.Get("protobuf") {
				t.Errorf("%s: protobuf tag %q, want %q", want.Name, got.Tag.Get("protobuf"), want.Tag.Get("protobuf"))
			}
			continue
		}
		if got.Tag != want.Tag || got.Type.Kind() != want.Type.Kind() {
			t.Errorf("%s: %v `%s`, want %v `%s`", want.Name, got.Type, got.Tag, want.Type, want.Tag)
		}
	}
}

func TestValidate(t *testing.T) {
	k := corev1.ConfigMapKind()
	yes, no := true, false
	cases := []struct {
		name     string
		obj, old *corev1.ConfigMap
		want     []string // fields in error
	}{
		{"valid", &corev1.ConfigMap{Data: map[string]string{"a.b-c_d": "x"}, BinaryData: map[string][]byte{"bin": {1}}}, nil, nil},
		{"bad keys", &corev1.ConfigMap{Data: map[string]string{"a b": ""}, BinaryData: map[string][]byte{"c/d": nil}}, nil,
			[]string{"data[a b]", "binaryData[c/d]"}},
		{"key in both", &corev1.ConfigMap{Data: map[string]string{"k": ""}, BinaryData: map[string][]byte{"k": nil}}, nil, []string{"data[k]"}},
		{"immutable kept", &corev1.ConfigMap{Immutable: &yes, Data: map[string]string{"k": "v"}},
			&corev1.ConfigMap{Immutable: &yes, Data: map[string]string{"k": "v"}}, nil},
		{"immutable data changed", &corev1.ConfigMap{Immutable: &yes, Data: map[string]string{"k": "w"}},
			&corev1.ConfigMap{Immutable: &yes, Data: map[string]string{"k": "v"}}, []string{"data"}},
		{"immutable unset", &corev1.ConfigMap{Immutable: &no}, &corev1.ConfigMap{Immutable: &yes}, []string{"immutable"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var old meta.Object
			if c.old != nil {
				old = c.old
			}
			errs := k.Validate(context.Background(), c.obj, old)
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("errors on %v, want %v (%v)", got, c.want, errs)
			}
		})
	}
}
