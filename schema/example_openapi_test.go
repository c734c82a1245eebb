package schema_test

import (
	"encoding/json"
	"fmt"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

const sprocketDoc = `
type: object
properties:
  spec:
    type: object
    properties:
      teeth:
        type: integer
        minimum: 3
        maximum: 60
        default: 12
      finish:
        type: string
        enum: [matte, gloss]
`

// A kind defined at run time: build its schema from an OpenAPI document,
// then prune, default and validate a decoded object as kube-apiserver
// does for a custom resource.
func ExampleFromOpenAPI() {
	s, err := schema.FromOpenAPI([]byte(sprocketDoc))
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := schema.NewValidator(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	var obj map[string]any
	_ = json.Unmarshal([]byte(`{"spec":{"finish":"shiny","color":"red"}}`), &obj)

	fmt.Println("unknown:", s.Prune(obj))
	s.ApplyDefaults(obj)
	out, _ := json.Marshal(obj)
	fmt.Println(string(out))
	for _, e := range v.Validate(status.Path{}, obj) {
		fmt.Println(e)
	}
	// Output:
	// unknown: [spec.color]
	// {"spec":{"finish":"shiny","teeth":12}}
	// spec.finish: Unsupported value: "shiny": supported values: "matte", "gloss"
}
