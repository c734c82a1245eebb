package openapi_test

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/openapi"
	"github.com/kapi-dev/kapi/schema"
)

type Gadget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            GadgetSpec `json:"spec,omitempty"`
}

type GadgetSpec struct {
	Owner string `json:"owner,omitempty" description:"Who owns the gadget."`
	Level int32  `json:"level,omitempty" minimum:"0" maximum:"10"`
}

func ExampleDocument() {
	s, err := schema.FromType(reflect.TypeFor[Gadget]())
	if err != nil {
		fmt.Println(err)
		return
	}
	doc, err := openapi.Document("stable.example.com", "v1", []openapi.Kind{{
		Kind: "Gadget", Resource: "gadgets", Schema: s,
		Verbs: []string{"get", "list", "create", "patch"},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	var d map[string]any
	if err := json.Unmarshal(doc, &d); err != nil {
		fmt.Println(err)
		return
	}
	get := func(keys ...string) any {
		var v any = d
		for _, k := range keys {
			v = v.(map[string]any)[k]
		}
		return v
	}
	item := "/apis/stable.example.com/v1/gadgets/{name}"
	fmt.Println(get("paths", item, "get", "operationId"))
	fmt.Println(get("paths", item, "patch", "operationId"), get("paths", item, "patch", "x-kubernetes-group-version-kind"))
	fmt.Println(get("paths", "/apis/stable.example.com/v1/gadgets", "post", "operationId"))
	fmt.Println(get("components", "schemas", "com.example.stable.v1.Gadget", "properties", "spec", "properties", "level"))
	// Output:
	// readStableExampleComV1Gadget
	// patchStableExampleComV1Gadget map[group:stable.example.com kind:Gadget version:v1]
	// createStableExampleComV1Gadget
	// map[format:int32 maximum:10 minimum:0 type:integer]
}

func ExampleIndex() {
	doc := []byte(`{"openapi":"3.0.0"}`)
	index, err := openapi.Index(map[string][]byte{"apis/stable.example.com/v1": doc})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(index[:80]) + "...")
	fmt.Println(len(openapi.Hash(doc)))
	// Output:
	// {"paths":{"apis/stable.example.com/v1":{"serverRelativeURL":"/openapi/v3/apis/st...
	// 128
}
