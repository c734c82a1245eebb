package schema_test

import (
	"fmt"
	"reflect"

	"github.com/kapi-dev/kapi/schema"
)

// A Defaulter is built once per type and fills in defaults without
// encoding the value to JSON.
func ExampleDefaulter() {
	s, err := schema.FromType(reflect.TypeFor[GadgetSpec]())
	if err != nil {
		panic(err)
	}
	d, err := schema.NewDefaulter(s, reflect.TypeFor[GadgetSpec]())
	if err != nil {
		panic(err) // errors.Is(err, schema.ErrNotPlannable): use Schema.ApplyDefaults
	}
	spec := GadgetSpec{Owner: "alice"}
	changed, err := d.Default(reflect.ValueOf(&spec).Elem())
	fmt.Println(changed, err, *spec.Level)
	// Output: true <nil> 1
}
