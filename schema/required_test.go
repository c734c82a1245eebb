package schema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

type reqPort struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty" default:"\"TCP\""`
	Mode     string `json:"mode" default:"\"fast\""`
}

type reqInline struct {
	Level int32 `json:"level"`
	// Note keeps its empty value in JSON but is optional, as the
	// fields of types mirroring Kubernetes' own are.
	Note string `json:"note" optional:"true"`
}

type reqKind struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	reqInline
	Spec struct {
		Ports  []reqPort          `json:"ports,omitempty"`
		ByName map[string]reqPort `json:"byName,omitempty"`
		Ptr    *reqPort           `json:"ptr,omitempty"`
		Tags   []string           `json:"tags,omitempty"`
	} `json:"spec,omitempty"`
}

func TestMissingRequired(t *testing.T) {
	typ := reflect.TypeFor[reqKind]()
	s, err := FromType(typ)
	if err != nil {
		t.Fatal(err)
	}
	check := NewRequiredCheck(s, typ)
	tests := []struct {
		name    string
		body    string
		mayMiss bool
		want    []string
	}{
		{"all set", `{"level":1,"spec":{"ports":[{"name":"a","port":80}],"byName":{"x":{"name":"b","port":1}},"ptr":{"name":"c","port":2}}}`, false, nil},
		{"port left out of a list item", `{"level":1,"spec":{"ports":[{"name":"a","port":80},{"name":"b"}]}}`, true,
			[]string{"spec.ports[1].port"}},
		{"explicit zero is present", `{"level":1,"spec":{"ports":[{"name":"a","port":0}]}}`, true, nil},
		{"map value and pointer", `{"level":1,"spec":{"byName":{"x":{"port":1}},"ptr":{"name":"c"}}}`, true,
			[]string{"spec.byName.x.name", "spec.ptr.port"}},
		{"flattened embedded field", `{"spec":{}}`, true, []string{"level"}},
		{"no spec at all", `{"level":3}`, false, nil},
		{"a field tagged optional left out", `{"level":3,"spec":{"ports":[{"name":"a","port":0}]}}`, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var obj reqKind
			if err := json.Unmarshal([]byte(tc.body), &obj); err != nil {
				t.Fatal(err)
			}
			if got := check.MayMiss(reflect.ValueOf(&obj)); got != tc.mayMiss {
				t.Errorf("MayMiss = %v, want %v", got, tc.mayMiss)
			}
			var x any
			if err := json.Unmarshal([]byte(tc.body), &x); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range s.MissingRequired(status.Path{}, x) {
				if e.Type != "FieldValueRequired" {
					t.Errorf("%s: type %s", e.Field, e.Type)
				}
				got = append(got, e.Field)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
}
