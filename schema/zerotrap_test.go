package schema

import (
	"reflect"
	"strings"
	"testing"
)

func TestCheckZeroValues(t *testing.T) {
	type port struct {
		Number int32 `json:"number,omitempty" minimum:"1"`
	}
	type replicas struct {
		Replicas int32 `json:"replicas,omitempty" default:"1"`
	}
	type nested struct {
		Spec struct {
			Ports []port `json:"ports,omitempty"`
		} `json:"spec"`
	}
	tests := []struct {
		name    string
		v       any
		wantErr string // "" for no trap
	}{
		{"non-zero default", replicas{},
			"replicas.Replicas: the field is tagged omitempty, so its zero value 0 is left out of JSON and the default 1 replaces it: make it a pointer (*int32)"},
		{"boolean default true", struct {
			On bool `json:"on,omitzero" default:"true"`
		}{}, "the default true replaces it: make it a pointer (*bool) so that an explicit false is kept"},
		{"float default", struct {
			Ratio float64 `json:"ratio,omitempty" default:"0.5"`
		}{}, "make it a pointer (*float64)"},
		{"minimum above zero, nested in a list", nested{},
			"nested.Spec.Ports[].Number: minimum 1 rejects 0, but the field is tagged omitempty, so a write of 0 removes the field instead of failing validation: make it a pointer (*int32)"},
		{"exclusive minimum of zero", struct {
			N int64 `json:"n,omitempty" minimum:"0" exclusiveMinimum:"true"`
		}{}, "minimum 0 rejects 0"},
		{"maximum below zero", struct {
			N int64 `json:"n,omitempty" maximum:"-1"`
		}{}, "maximum -1 rejects 0"},
		{"map values", struct {
			M map[string]replicas `json:"m,omitempty"`
		}{}, "M[].Replicas"},
		{"pointer keeps the zero", struct {
			Replicas *int32 `json:"replicas,omitempty" default:"1" minimum:"1"`
		}{}, ""},
		{"without omitempty the zero is sent", struct {
			Replicas int32 `json:"replicas" default:"1" minimum:"1"`
		}{}, ""},
		{"zero default", struct {
			Level int32 `json:"level,omitempty" default:"0" minimum:"0" maximum:"9"`
		}{}, ""},
		{"string default is the Kubernetes convention", struct {
			Protocol string `json:"protocol,omitempty" default:"\"TCP\""`
		}{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			typ := reflect.TypeOf(tc.v)
			s, err := FromType(typ)
			if err != nil {
				t.Fatalf("FromType: %v", err)
			}
			err = CheckZeroValues(s, typ)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("CheckZeroValues: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("CheckZeroValues: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}
