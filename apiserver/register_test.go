package apiserver_test

import (
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

func TestRegisterRefusesSecondVersion(t *testing.T) {
	tests := []struct {
		name    string
		second  func(k *apiserver.Kind)
		wantErr string // "" when the second registration is fine
	}{
		{"same kind and resource in v2", func(k *apiserver.Kind) { k.Version = "v2" },
			"widgets.stable.example.com (kind Widget) is already served in version v1: register every version of a kind (here v2 too) in one Kind"},
		{"same resource under another kind name", func(k *apiserver.Kind) { k.Version, k.Kind = "v1beta1", "Gizmo" },
			"already served in version v1"},
		{"same kind under another resource name", func(k *apiserver.Kind) { k.Version, k.Resource = "v2", "widgetz" },
			"already served in version v1"},
		{"another kind in another version", func(k *apiserver.Kind) {
			k.Version, k.Kind, k.Resource, k.ShortNames, k.Subresources.Scale = "v2", "Sprocket", "sprockets", nil, nil
		}, ""},
		{"the same kind in another group", func(k *apiserver.Kind) { k.Group, k.Version = "other.example.com", "v2" }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := apiserver.New(apiserver.Options{})
			defer srv.Close()
			second := widgetKind()
			tc.second(&second)
			err := srv.Register(widgetKind()).Register(second).Err()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Err() = %v, want nil", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Err() = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestRegisterRefusesZeroValueTraps(t *testing.T) {
	type replicasDefault struct {
		meta.TypeMeta   `json:",inline"`
		meta.ObjectMeta `json:"metadata,omitempty"`
		Spec            struct {
			Replicas int32 `json:"replicas,omitempty" default:"1"`
		} `json:"spec,omitempty"`
	}
	type minimumOne struct {
		meta.TypeMeta   `json:",inline"`
		meta.ObjectMeta `json:"metadata,omitempty"`
		Spec            struct {
			Size int64 `json:"size,omitempty" minimum:"1"`
		} `json:"spec,omitempty"`
	}
	tests := []struct {
		name    string
		new     func() meta.Object
		wantErr string
	}{
		{"non-zero default", func() meta.Object { return &replicasDefault{} },
			"Spec.Replicas: the field is tagged omitempty, so its zero value 0 is left out of JSON and the default 1 replaces it: make it a pointer (*int32)"},
		{"minimum the zero value violates", func() meta.Object { return &minimumOne{} },
			"Spec.Size: minimum 1 rejects 0, but the field is tagged omitempty, so a write of 0 removes the field instead of failing validation: make it a pointer (*int64)"},
		{"pointers are fine", func() meta.Object { return &widget{} }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := apiserver.New(apiserver.Options{})
			defer srv.Close()
			k := widgetKind()
			k.New = tc.new
			err := srv.Register(k).Err()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Err() = %v, want nil", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Err() = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
