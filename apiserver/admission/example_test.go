package admission_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// A chain labels what it admits and refuses names it does not like; a
// refusal that is not a Status is answered 403 Forbidden.
func ExampleChain() {
	c := admission.Chain{
		Mutating: []admission.Func{func(_ context.Context, a *admission.Request) error {
			m := a.Object.GetObjectMeta()
			m.Labels = map[string]string{"admitted": "yes"}
			return nil
		}},
		Validating: []admission.Func{func(_ context.Context, a *admission.Request) error {
			if a.Name == "forbidden" {
				return errors.New("that name is taken")
			}
			return nil
		}},
	}
	gr := meta.GroupResource{Group: "stable.example.com", Resource: "widgets"}
	obj := &meta.Unstructured{ObjectMeta: meta.ObjectMeta{Name: "forbidden"}}
	a := &admission.Request{Operation: admission.Create, Resource: gr, Name: obj.Name, Object: obj}
	mutated, _ := c.Mutate(context.Background(), gr, nil, a)
	fmt.Println(mutated, obj.Labels["admitted"])
	err := c.Validate(context.Background(), gr, a)
	fmt.Println(status.FromError(err).Code, err)
	// Output:
	// true yes
	// 403 widgets.stable.example.com "forbidden" is forbidden: that name is taken
}
