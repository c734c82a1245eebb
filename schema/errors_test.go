package schema

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type badMinimum struct {
	N int32 `json:"n" minimum:"zero"`
}

type mapWithoutKeys struct {
	Items []struct {
		Name string `json:"name"`
	} `json:"items" listType:"map"`
}

type keyNotRequired struct {
	Items []struct {
		Name string `json:"name,omitempty"`
	} `json:"items" listType:"map" listMapKey:"name"`
}

type keyMissing struct {
	Items []struct {
		Name string `json:"name"`
	} `json:"items" listType:"map" listMapKey:"id"`
}

type keysWithoutMap struct {
	Items []struct {
		Name string `json:"name"`
	} `json:"items" listMapKey:"name"`
}

type setOfObjects struct {
	Items []struct {
		Name string `json:"name"`
	} `json:"items" listType:"set"`
}

type badListType struct {
	S string `json:"s" listType:"set"`
}

type badPattern struct {
	S string `json:"s" pattern:"([a-z"`
}

type patternOnInt struct {
	N int `json:"n" pattern:"^1$"`
}

type unquotedDefault struct {
	S string `json:"s" default:"TCP"`
}

type defaultOutOfRange struct {
	N int32 `json:"n" default:"5000" maximum:"1000"`
}

type defaultWrongType struct {
	N int32 `json:"n" default:"\"one\""`
}

type defaultNotInEnum struct {
	S string `json:"s" default:"\"SCTP\"" enum:"TCP,UDP"`
}

type badEnum struct {
	N int32 `json:"n" enum:"1,two"`
}

type badMapType struct {
	M map[string]string `json:"m" mapType:"flat"`
}

type badBool struct {
	M map[string]string `json:"m" nullable:"yes"`
}

type minAboveMax struct {
	N int32 `json:"n" minimum:"10" maximum:"1"`
}

type inlineNamed struct {
	In struct {
		A string `json:"a"`
	} `json:",inline"`
}

type recursive struct {
	Children []recursive `json:"children"`
}

type recursivePtr struct {
	Next *recursivePtr `json:"next"`
}

type chanField struct {
	C chan int `json:"c"`
}

type structKey struct {
	M map[struct{ A int }]string `json:"m"`
}

type dupA struct {
	X string // untagged on both sides: encoding/json would drop both
}

type dupB struct {
	X string
}

type duplicate struct {
	dupA
	dupB
}

type badMergeKey struct {
	Items []struct {
		Name string `json:"name"`
	} `json:"items" patchStrategy:"merge" patchMergeKey:"id"`
}

type badStrategy struct {
	Items []string `json:"items" patchStrategy:"smash"`
}

type nilProvider struct{}

func (*nilProvider) OpenAPISchema() *Schema { return nil }

type hasNilProvider struct {
	P nilProvider `json:"p"`
}

func TestFromTypeErrors(t *testing.T) {
	tests := []struct {
		value any
		want  []string // substrings of the error
	}{
		{badMinimum{}, []string{"badMinimum.N", "minimum", "not a number"}},
		{mapWithoutKeys{}, []string{"mapWithoutKeys.Items", "needs listMapKey"}},
		{keyNotRequired{}, []string{"keyNotRequired.Items", `"name"`, "required"}},
		{keyMissing{}, []string{"keyMissing.Items", `"id" is not a field`}},
		{keysWithoutMap{}, []string{"keysWithoutMap.Items", "needs listType map"}},
		{setOfObjects{}, []string{"setOfObjects.Items", "scalar or atomic"}},
		{badListType{}, []string{"badListType.S", "applies to arrays"}},
		{badPattern{}, []string{"badPattern.S", "regular expression"}},
		{patternOnInt{}, []string{"patternOnInt.N", "applies to strings"}},
		{unquotedDefault{}, []string{"unquotedDefault.S", "strings need quotes"}},
		{defaultOutOfRange{}, []string{"defaultOutOfRange.N", "above the maximum"}},
		{defaultWrongType{}, []string{"defaultWrongType.N", "not of type integer"}},
		{defaultNotInEnum{}, []string{"defaultNotInEnum.S", "enum"}},
		{badEnum{}, []string{"badEnum.N", `"two" is not an integer`}},
		{badMapType{}, []string{"badMapType.M", "atomic or granular"}},
		{badBool{}, []string{"badBool.M", "not a boolean"}},
		{minAboveMax{}, []string{"minAboveMax.N", "minimum is above maximum"}},
		{inlineNamed{}, []string{"inlineNamed.In", "embedded"}},
		{recursive{}, []string{"recursive.Children", "recursive type"}},
		{recursivePtr{}, []string{"recursivePtr.Next", "recursive type"}},
		{chanField{}, []string{"chanField.C", "no JSON form"}},
		{structKey{}, []string{"structKey.M", "map key"}},
		{duplicate{}, []string{"duplicate.dupA.X", "duplicate.dupB.X", `"X"`}},
		{badMergeKey{}, []string{"badMergeKey.Items", "patchMergeKey"}},
		{badStrategy{}, []string{"badStrategy.Items", "smash"}},
		{hasNilProvider{}, []string{"hasNilProvider.P", "returned nil"}},
	}
	for _, tc := range tests {
		name := reflect.TypeOf(tc.value).Name()
		t.Run(name, func(t *testing.T) {
			_, err := FromType(reflect.TypeOf(tc.value))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	if _, err := FromType(nil); err == nil {
		t.Error("FromType(nil): no error")
	}
}

type keyWithDefault struct {
	Items []struct {
		Name string `json:"name,omitempty" default:"\"main\""`
	} `json:"items" listType:"map" listMapKey:"name"`
}

type goodTags struct {
	Ratio   float64           `json:"ratio" minimum:"0" exclusiveMinimum:"true" maximum:"1"`
	Mode    string            `json:"mode" enum:"[\"a\",\"b\"]" default:"\"a\"" minLength:"1" maxLength:"1"`
	Labels  map[string]string `json:"labels,omitempty" mapType:"atomic" maxProperties:"4"`
	Raw     any               `json:"raw,omitempty" intOrString:"true"`
	Nums    []int64           `json:"nums,omitempty" minItems:"1" maxItems:"3" default:"[1,2]"`
	Stamp   string            `json:"stamp,omitempty" format:"date-time" nullable:"true"`
	Nested  struct{}          `json:"nested" embeddedResource:"true" preserveUnknownFields:"true"`
	Replace []string          `json:"replace,omitempty" patchStrategy:"merge,retainKeys"`
}

func TestFromTypeTags(t *testing.T) {
	if _, err := FromType(reflect.TypeOf(keyWithDefault{})); err != nil {
		t.Errorf("a defaulted list-map key: %v", err)
	}
	s := mustFromType(t, goodTags{})
	p := s.Properties
	switch {
	case !p["ratio"].ExclusiveMinimum || *p["ratio"].Maximum != 1:
		t.Errorf("ratio: %+v", p["ratio"])
	case len(p["mode"].Enum) != 2 || p["mode"].Default != "a" || *p["mode"].MaxLength != 1:
		t.Errorf("mode: %+v", p["mode"])
	case p["labels"].XMapType != "atomic" || *p["labels"].MaxProperties != 4:
		t.Errorf("labels: %+v", p["labels"])
	case !p["raw"].XIntOrString || p["raw"].XPreserveUnknownFields:
		t.Errorf("raw: %+v", p["raw"])
	case *p["nums"].MinItems != 1:
		t.Errorf("nums: %+v", p["nums"])
	case !cmp.Equal(p["nums"].Default, []any{int64(1), int64(2)}):
		t.Errorf("nums default (-want +got):\n%s", cmp.Diff([]any{int64(1), int64(2)}, p["nums"].Default))
	case p["stamp"].Format != "date-time" || !p["stamp"].Nullable:
		t.Errorf("stamp: %+v", p["stamp"])
	case !p["nested"].XEmbeddedResource || !p["nested"].XPreserveUnknownFields:
		t.Errorf("nested: %+v", p["nested"])
	case p["replace"].XPatchStrategy != "merge,retainKeys":
		t.Errorf("replace: %+v", p["replace"])
	}
}
