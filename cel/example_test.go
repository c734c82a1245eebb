package cel_test

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// An engine compiles the rules of a schema once and evaluates them on
// each write; apiserver.Options.RuleEngine takes it.
func Example() {
	s, err := schema.FromOpenAPI([]byte(`
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "!has(self.color) || self.replicas >= 1"
      message: replicas may not drop below 1 while color is set
    properties:
      replicas: {type: integer}
      color: {type: string, maxLength: 32}
      size:
        type: string
        maxLength: 16
        x-kubernetes-validations:
        - rule: self == oldSelf
          message: size is immutable once set
`))
	if err != nil {
		panic(err)
	}
	engine, err := cel.New(cel.Options{})
	if err != nil {
		panic(err)
	}
	rules, err := engine.Compile(s, status.NewPath("openAPIV3Schema"))
	if err != nil {
		panic(err)
	}
	old := map[string]any{"spec": map[string]any{"replicas": int64(2), "color": "red", "size": "L"}}
	obj := map[string]any{"spec": map[string]any{"replicas": int64(0), "color": "red", "size": "M"}}
	errs, _ := rules.Validate(context.Background(), obj, old)
	for _, e := range errs {
		fmt.Println(e.Error())
	}
	// Output:
	// spec: Invalid value: replicas may not drop below 1 while color is set
	// spec.size: Invalid value: "M": size is immutable once set
}
