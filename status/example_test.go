package status_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// A NotFound error, its predicate through wrapping, and the Status body it
// puts on the wire.
func ExampleNotFound() {
	gr := meta.GroupResource{Group: "stable.example.com", Resource: "widgets"}
	err := fmt.Errorf("get: %w", status.NotFound(gr, "foo"))

	fmt.Println(status.IsNotFound(err), status.CodeOf(err))
	_ = json.NewEncoder(os.Stdout).Encode(status.FromError(err))
	// Output:
	// true 404
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.stable.example.com \"foo\" not found","reason":"NotFound","details":{"name":"foo","group":"stable.example.com","kind":"widgets"},"code":404}
}

// A Conflict for a stale resourceVersion, worded as kube-apiserver words it.
func ExampleConflict() {
	gr := meta.GroupResource{Group: "stable.example.com", Resource: "widgets"}
	err := status.Conflict(gr, "foo", errors.New(status.OptimisticLockMessage))
	fmt.Println(err)
	// Output:
	// Operation cannot be fulfilled on widgets.stable.example.com "foo": the object has been modified; please apply your changes to the latest version and try again
}

// An Invalid error built from field errors: the message lists them and
// each becomes a cause.
func ExampleInvalid() {
	gvk := meta.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Widget"}
	spec := status.NewPath("spec")
	err := status.Invalid(gvk, "foo", status.FieldErrors{
		status.InvalidValue(spec.Child("replicas"), 5000, "must be less than or equal to 1000"),
		status.Required(spec.Child("ports").Index(0).Child("name"), ""),
	})
	fmt.Println(err)
	for _, c := range err.Status.Details.Causes {
		fmt.Printf("%s %s: %s\n", c.Type, c.Field, c.Message)
	}
	// Output:
	// Widget.stable.example.com "foo" is invalid: [spec.replicas: Invalid value: 5000: must be less than or equal to 1000, spec.ports[0].name: Required value]
	// FieldValueInvalid spec.replicas: Invalid value: 5000: must be less than or equal to 1000
	// FieldValueRequired spec.ports[0].name: Required value
}

// Field paths render as in Kubernetes' validation messages.
func ExampleNewPath() {
	fmt.Println(status.NewPath("spec", "ports").Index(0).Child("name"))
	fmt.Println(status.NewPath("metadata", "labels").Key("app"))
	// Output:
	// spec.ports[0].name
	// metadata.labels[app]
}

// Errors that carry no Status are internal errors.
func ExampleFromError() {
	st := status.FromError(errors.New("disk on fire"))
	fmt.Println(st.Code, st.Reason, st.Message)
	fmt.Println(status.ReasonOf(errors.New("disk on fire")) == meta.StatusReasonUnknown)
	// Output:
	// 500 InternalError Internal error occurred: disk on fire
	// true
}
