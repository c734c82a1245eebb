package fastfields_test

import (
	"fmt"
	"reflect"

	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/patch/internal/fastfields"
	"github.com/kapi-dev/kapi/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// A create owns every field it sets; an update takes the fields it
// changed from their owners.
func ExampleFields() {
	s, err := schema.FromType(reflect.TypeFor[Widget]())
	if err != nil {
		panic(err)
	}
	pt, err := patch.SMDSchema(s)
	if err != nil {
		panic(err)
	}
	f := fastfields.Fields{Type: pt, Version: "stable.example.com/v1"}
	live := map[string]any{"spec": map[string]any{"replicas": int64(1), "color": "red"}}
	created, ok := f.Created(live, nil)
	js, _ := created.ToJSON()
	fmt.Println(ok, string(js))

	obj := map[string]any{"spec": map[string]any{"replicas": int64(2), "color": "red"}}
	managers := fieldpath.ManagedFields{"creator": fieldpath.NewVersionedSet(created, f.Version, false)}
	out, ok := f.Updated(live, obj, managers, "scaler", nil)
	for _, id := range []string{"creator", "scaler"} {
		js, _ := out[id].Set().ToJSON()
		fmt.Println(ok, id, string(js))
	}
	// Output:
	// true {"f:spec":{".":{},"f:color":{},"f:replicas":{}}}
	// true creator {"f:spec":{".":{},"f:color":{}}}
	// true scaler {"f:spec":{"f:replicas":{}}}
}
