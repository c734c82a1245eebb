package schema_test

import (
	"fmt"
	"reflect"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

type Gadget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            GadgetSpec `json:"spec,omitempty"`
}

type GadgetSpec struct {
	Owner string   `json:"owner" description:"Who owns the gadget." pattern:"^[a-z]+$"`
	Level *int32   `json:"level,omitempty" default:"1" minimum:"0" maximum:"10"`
	Tags  []string `json:"tags,omitempty" listType:"set"`
}

func ExampleFromType() {
	s, err := schema.FromType(reflect.TypeFor[Gadget]())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.PropertyOrder)
	fmt.Println(s.Lookup("metadata").Name)

	spec := s.Lookup("spec")
	fmt.Println(spec.PropertyOrder, "required:", spec.Required)
	level := spec.Lookup("level")
	fmt.Println(level.Type, level.Format, level.Default, *level.Minimum, *level.Maximum)
	fmt.Println(spec.Lookup("owner").Description, spec.Lookup("tags").XListType)
	// Output:
	// [kind apiVersion metadata spec]
	// io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta
	// [owner level tags] required: [owner]
	// integer int32 1 0 10
	// Who owns the gadget. set
}

type ports struct {
	Ports []struct {
		Name string `json:"name,omitempty"`
	} `json:"ports" listType:"map" listMapKey:"name"`
}

func ExampleFromType_badTag() {
	_, err := schema.FromType(reflect.TypeFor[ports]())
	fmt.Println(err)
	// Output:
	// schema: ports.Ports: listMapKey "name" must be a required field of the items (or have a default)
}
