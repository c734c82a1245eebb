package corev1_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

func fields(errs status.FieldErrors) string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field)
	}
	return strings.Join(out, ",")
}

func TestSecretDefaultMergesStringData(t *testing.T) {
	k := corev1.SecretKind()
	s := &corev1.Secret{Data: map[string][]byte{"a": []byte("old"), "b": []byte("kept")}, StringData: map[string]string{"a": "new", "c": "added"}}
	k.Default(context.Background(), s)
	if s.StringData != nil || string(s.Data["a"]) != "new" || string(s.Data["b"]) != "kept" || string(s.Data["c"]) != "added" {
		t.Errorf("after defaulting: data %q stringData %v", s.Data, s.StringData)
	}
	if s.Type != corev1.SecretTypeOpaque {
		t.Errorf("type %q, want Opaque", s.Type)
	}
	only := &corev1.Secret{StringData: map[string]string{"x": "y"}, Type: "helm.sh/release.v1"}
	k.Default(context.Background(), only)
	if string(only.Data["x"]) != "y" || only.Type != "helm.sh/release.v1" {
		t.Errorf("stringData only: %+v", only)
	}
}

func TestValidateSecret(t *testing.T) {
	k := corev1.SecretKind()
	yes := true
	cases := []struct {
		name     string
		obj, old *corev1.Secret
		want     string
	}{
		{"valid", &corev1.Secret{Type: "Opaque", Data: map[string][]byte{"k": nil}}, nil, ""},
		{"bad key", &corev1.Secret{Type: "Opaque", Data: map[string][]byte{"a/b": nil}}, nil, "data[a/b]"},
		{"tls without key", &corev1.Secret{Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": nil}}, nil, "data[tls.key]"},
		{"too big", &corev1.Secret{Type: "Opaque", Data: map[string][]byte{"k": make([]byte, corev1.MaxSecretBytes)}}, nil, "data"},
		{"type changed", &corev1.Secret{Type: "b"}, &corev1.Secret{Type: "a"}, "type"},
		{"immutable data changed", &corev1.Secret{Type: "Opaque", Immutable: &yes, Data: map[string][]byte{"k": []byte("2")}},
			&corev1.Secret{Type: "Opaque", Immutable: &yes, Data: map[string][]byte{"k": []byte("1")}}, "data"},
		{"immutable unset", &corev1.Secret{Type: "Opaque"}, &corev1.Secret{Type: "Opaque", Immutable: &yes}, "immutable"},
		{"immutable kept", &corev1.Secret{Type: "Opaque", Immutable: &yes, Data: map[string][]byte{"k": []byte("1")}},
			&corev1.Secret{Type: "Opaque", Immutable: &yes, Data: map[string][]byte{"k": []byte("1")}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var old meta.Object
			if c.old != nil {
				old = c.old
			}
			if got := fields(k.Validate(context.Background(), c.obj, old)); got != c.want {
				t.Errorf("errors on %q, want %q", got, c.want)
			}
		})
	}
}

func TestSecretFieldSelector(t *testing.T) {
	k := corev1.SecretKind()
	get, ok := k.SelectableFields["type"]
	if !ok {
		t.Fatal("type is not selectable")
	}
	if v := get(&corev1.Secret{Type: "kubernetes.io/tls"}); v != "kubernetes.io/tls" {
		t.Errorf("type = %q", v)
	}
	if _, ok := k.SelectableFields["data"]; ok {
		t.Error("data is selectable")
	}
}
