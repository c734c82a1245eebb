package corev1_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
)

func TestValidateConfigMap(t *testing.T) {
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
