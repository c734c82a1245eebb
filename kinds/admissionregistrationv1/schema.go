package admissionregistrationv1

import (
	"reflect"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// schemaOf is the schema of obj's Go type without required properties:
// kube-apiserver does not hold built-in kinds to their OpenAPI's required
// lists but to their validation, which reports a missing webhook name,
// client config or match condition name with the rest of what is wrong
// (and sometimes with words of its own), so the kinds' Validate must see
// such objects. Built once, at registration.
func schemaOf(obj meta.Object) *schema.Schema {
	s, err := schema.FromType(reflect.TypeOf(obj).Elem())
	if err != nil {
		// The types of this package are fixed; a failure is a bug in
		// them, caught by the registration test.
		panic(err)
	}
	dropRequired(s)
	return s
}

func dropRequired(s *schema.Schema) {
	if s == nil {
		return
	}
	s.Required = nil
	for _, p := range s.Properties {
		dropRequired(p)
	}
	dropRequired(s.Items)
	dropRequired(s.AdditionalProperties)
}
