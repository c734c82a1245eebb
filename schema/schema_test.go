package schema

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
)

// The Widget kind of DESIGN.md, as a host would declare it.
type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            widgetSpec   `json:"spec,omitempty"`
	Status          widgetStatus `json:"status,omitempty"`
}

type widgetSpec struct {
	Replicas *int32       `json:"replicas,omitempty" default:"1" minimum:"0" maximum:"1000" description:"Desired number of replicas."`
	Color    string       `json:"color,omitempty" pattern:"^[a-z]+$"`
	Size     string       `json:"size,omitempty"`
	Tags     []string     `json:"tags,omitempty" listType:"set"`
	Ports    []widgetPort `json:"ports,omitempty" listType:"map" listMapKey:"name" patchStrategy:"merge" patchMergeKey:"name"`
}

type widgetPort struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty" default:"\"TCP\"" enum:"TCP,UDP"`
}

type widgetStatus struct {
	ReadyReplicas      int32             `json:"readyReplicas,omitempty"`
	ObservedGeneration int64             `json:"observedGeneration,omitempty"`
	Selector           string            `json:"selector,omitempty"`
	Conditions         []widgetCondition `json:"conditions,omitempty" listType:"map" listMapKey:"type"`
}

type widgetCondition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty"`
}

func mustFromType(t *testing.T, v any) *Schema {
	t.Helper()
	s, err := FromType(reflect.TypeOf(v))
	if err != nil {
		t.Fatalf("FromType(%T): %v", v, err)
	}
	return s
}

type textKey string

func (k textKey) MarshalText() ([]byte, error) { return []byte(k), nil }

type customJSON struct{ X int }

func (customJSON) MarshalJSON() ([]byte, error) { return []byte(`"x"`), nil }

type intOrString struct{}

func (*intOrString) OpenAPISchema() *Schema {
	return &Schema{XIntOrString: true, Description: "int or string"}
}

func TestFromTypeKinds(t *testing.T) {
	tests := []struct {
		name           string
		value          any
		typ, format    string
		preserve       bool
		items, addProp string // Type of Items / AdditionalProperties
	}{
		{"bool", true, "boolean", "", false, "", ""},
		{"int8", int8(0), "integer", "int32", false, "", ""},
		{"int32", int32(0), "integer", "int32", false, "", ""},
		{"uint16", uint16(0), "integer", "int32", false, "", ""},
		{"int", 0, "integer", "int64", false, "", ""},
		{"int64", int64(0), "integer", "int64", false, "", ""},
		{"uint64", uint64(0), "integer", "int64", false, "", ""},
		{"float32", float32(0), "number", "float", false, "", ""},
		{"float64", float64(0), "number", "double", false, "", ""},
		{"string", "", "string", "", false, "", ""},
		{"bytes", []byte(nil), "string", "byte", false, "", ""},
		{"pointer", new(int32), "integer", "int32", false, "", ""},
		{"slice", []string(nil), "array", "", false, "string", ""},
		{"array", [2]int64{}, "array", "", false, "integer", ""},
		{"map", map[string]bool(nil), "object", "", false, "", "boolean"},
		{"int-keyed map", map[int]string(nil), "object", "", false, "", "string"},
		{"text-keyed map", map[textKey]int32(nil), "object", "", false, "", "integer"},
		{"time", time.Time{}, "string", "date-time", false, "", ""},
		{"meta.Time", meta.Time{}, "string", "date-time", false, "", ""},
		{"FieldsV1", meta.FieldsV1{}, "object", "", true, "", ""},
		{"RawMessage", json.RawMessage(nil), "", "", true, "", ""},
		{"any", []any(nil), "array", "", false, "", ""},
		{"json.Marshaler", customJSON{}, "", "", true, "", ""},
		{"TextMarshaler", textKey(""), "string", "", false, "", ""},
		{"Duration", time.Duration(0), "integer", "int64", false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustFromType(t, tc.value)
			if s.Type != tc.typ || s.Format != tc.format || s.XPreserveUnknownFields != tc.preserve {
				t.Errorf("got type %q format %q preserve %v, want %q %q %v",
					s.Type, s.Format, s.XPreserveUnknownFields, tc.typ, tc.format, tc.preserve)
			}
			if tc.items != "" && (s.Items == nil || s.Items.Type != tc.items) {
				t.Errorf("items: got %+v, want type %q", s.Items, tc.items)
			}
			if tc.addProp != "" && (s.AdditionalProperties == nil || s.AdditionalProperties.Type != tc.addProp) {
				t.Errorf("additionalProperties: got %+v, want type %q", s.AdditionalProperties, tc.addProp)
			}
		})
	}
}

type base struct {
	Shared string `json:"shared"`
	Shadow string `json:"shadow"`
}

type inner struct {
	Deep string `json:"deep,omitempty"`
}

type fieldRules struct {
	base
	*inner
	Shadow    int               `json:"shadow"`
	Plain     string            // no tag: Go name, required
	Renamed   string            `json:"renamed"`
	Optional  string            `json:"optional,omitempty"`
	Zero      time.Time         `json:"zero,omitzero"`
	Ptr       *string           `json:"ptr"`
	List      []int32           `json:"list"`
	Dict      map[string]string `json:"dict"`
	Quoted    int64             `json:"quoted,string"`
	Skipped   string            `json:"-"`
	hidden    string
	Iface     any                   `json:"iface"`
	OrIntStr  intOrString           `json:"orIntStr,omitempty"`
	OwnedRefs []meta.OwnerReference `json:"ownedRefs,omitempty"`
}

func TestFromTypeFields(t *testing.T) {
	s := mustFromType(t, fieldRules{hidden: ""})
	// encoding/json's order: each field where it is declared, the outer
	// shadow after the embedded fields it hides.
	wantOrder := []string{"shared", "deep", "shadow", "Plain", "renamed", "optional", "zero", "ptr", "list", "dict", "quoted", "iface", "orIntStr", "ownedRefs"}
	if !slices.Equal(s.PropertyOrder, wantOrder) {
		t.Errorf("PropertyOrder = %v, want %v", s.PropertyOrder, wantOrder)
	}
	wantRequired := []string{"shared", "shadow", "Plain", "renamed", "quoted", "iface"}
	if !slices.Equal(s.Required, wantRequired) {
		t.Errorf("Required = %v, want %v", s.Required, wantRequired)
	}
	tests := []struct {
		prop, typ string
	}{
		{"shadow", "integer"}, // the outer field wins over the embedded one
		{"quoted", "string"},  // ",string" quotes the number
		{"iface", ""},
		{"orIntStr", ""},
	}
	for _, tc := range tests {
		if got := s.Properties[tc.prop]; got == nil || got.Type != tc.typ {
			t.Errorf("property %s: got %+v, want type %q", tc.prop, got, tc.typ)
		}
	}
	if p := s.Properties["orIntStr"]; !p.XIntOrString || p.Description != "int or string" {
		t.Errorf("Provider schema not used: %+v", p)
	}
	if p := s.Properties["ownedRefs"]; p.Items.Name != "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference" || p.Items.XMapType != "atomic" {
		t.Errorf("OwnerReference items: %+v", p.Items)
	}
}

func TestFromTypeWidget(t *testing.T) {
	s := mustFromType(t, widget{})
	if want := []string{"kind", "apiVersion", "metadata", "spec", "status"}; !slices.Equal(s.PropertyOrder, want) {
		t.Errorf("PropertyOrder = %v, want %v", s.PropertyOrder, want)
	}
	one, zero, thousand := int64(1), 0.0, 1000.0
	tests := []struct {
		path  string
		check func(*Schema) bool
	}{
		{"spec.replicas", func(s *Schema) bool {
			return s.Type == "integer" && s.Format == "int32" && s.Default == one &&
				*s.Minimum == zero && *s.Maximum == thousand && s.Description == "Desired number of replicas."
		}},
		{"spec.color", func(s *Schema) bool { return s.Pattern == "^[a-z]+$" }},
		{"spec.tags", func(s *Schema) bool { return s.XListType == "set" && s.Items.Type == "string" }},
		{"spec.ports", func(s *Schema) bool {
			return s.XListType == "map" && slices.Equal(s.XListMapKeys, []string{"name"}) &&
				s.XPatchStrategy == "merge" && s.XPatchMergeKey == "name" &&
				slices.Equal(s.Items.Required, []string{"name", "port"})
		}},
		{"spec.ports.protocol", func(s *Schema) bool { return s.Default == "TCP" && len(s.Enum) == 2 }},
		{"status.observedGeneration", func(s *Schema) bool { return s.Format == "int64" }},
		{"status.conditions", func(s *Schema) bool { return s.XListType == "map" && s.XListMapKeys[0] == "type" }},
		{"status.conditions.lastTransitionTime", func(s *Schema) bool {
			return s.Name == metaPrefix+"Time" && s.Format == "date-time"
		}},
		{"metadata", func(s *Schema) bool { return s.Name == metaPrefix+"ObjectMeta" && s.Description != "" }},
		{"metadata.ownerReferences", func(s *Schema) bool {
			return s.XListType == "map" && s.XListMapKeys[0] == "uid" && s.XPatchMergeKey == "uid"
		}},
		{"metadata.labels.anyKey", func(s *Schema) bool { return s.Type == "string" }},
		{"metadata.managedFields.fieldsV1", func(s *Schema) bool { return s.XPreserveUnknownFields }},
		{"kind", func(s *Schema) bool { return s.Description == descKind }},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got := s.Lookup(strings.Split(tc.path, ".")...)
			if got == nil || !tc.check(got) {
				t.Errorf("Lookup(%s) = %+v", tc.path, got)
			}
		})
	}
}

func TestFromTypeMeta(t *testing.T) {
	tests := []struct {
		value    any
		name     string
		required []string
	}{
		{meta.ObjectMeta{}, "ObjectMeta", nil},
		{meta.ListMeta{}, "ListMeta", nil},
		{meta.Status{}, "Status", nil},
		{meta.StatusDetails{}, "StatusDetails", nil},
		{meta.StatusCause{}, "StatusCause", nil},
		{meta.DeleteOptions{}, "DeleteOptions", nil},
		{meta.Preconditions{}, "Preconditions", nil},
		{meta.OwnerReference{}, "OwnerReference", []string{"apiVersion", "kind", "name", "uid"}},
		{meta.ManagedFieldsEntry{}, "ManagedFieldsEntry", nil},
		{meta.WatchEvent{}, "WatchEvent", []string{"type", "object"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustFromType(t, tc.value)
			if s.Name != metaPrefix+tc.name || s.Description == "" {
				t.Errorf("Name %q Description %q", s.Name, s.Description)
			}
			if !slices.Equal(s.Required, tc.required) {
				t.Errorf("Required = %v, want %v", s.Required, tc.required)
			}
			for _, p := range s.PropertyOrder {
				if s.Properties[p].Description == "" {
					t.Errorf("property %s has no description", p)
				}
			}
		})
	}
}

// stamp stands for a type of another library with its own JSON form: a
// struct reflection would describe as an object.
type stamp struct{ t time.Time }

func (s stamp) MarshalJSON() ([]byte, error) { return json.Marshal(s.t) }

type stamped struct {
	At    stamp  `json:"at"`
	Maybe *stamp `json:"maybe,omitempty" description:"When, maybe."`
	Many  []stamp
}

func TestFromTypeOptionsTypes(t *testing.T) {
	given := &Schema{Type: "string", Format: "date-time"}
	s, err := FromTypeOptions(reflect.TypeFor[stamped](), TypeOptions{Types: map[reflect.Type]*Schema{reflect.TypeFor[stamp](): given}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Schema{s.Properties["at"], s.Properties["maybe"], s.Properties["Many"].Items} {
		if p.Type != "string" || p.Format != "date-time" || p.XPreserveUnknownFields {
			t.Errorf("got %+v, want the given schema", p)
		}
	}
	if d := s.Properties["maybe"].Description; d != "When, maybe." || given.Description != "" {
		t.Errorf("tags: field description %q, the given schema's %q (must stay empty)", d, given.Description)
	}
	if !slices.Equal(s.Required, []string{"at"}) {
		t.Errorf("Required = %v", s.Required)
	}
	// Without it, a json.Marshaler is any value.
	plain := mustFromType(t, stamped{})
	if !plain.Properties["at"].XPreserveUnknownFields {
		t.Errorf("without the option: %+v", plain.Properties["at"])
	}
	if _, err := FromTypeOptions(reflect.TypeFor[stamped](), TypeOptions{Types: map[reflect.Type]*Schema{reflect.TypeFor[stamp](): nil}}); err == nil {
		t.Error("a nil given schema was accepted")
	}
}
