package cel

import (
	"context"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// compile builds a schema from an OpenAPI document and compiles it.
func compile(t testing.TB, doc string) *Validator {
	t.Helper()
	v, err := compileErr(t, doc)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return v
}

// compileErr compiles an OpenAPI document's rules, naming its root
// openAPIV3Schema in errors, or at[0] when given.
func compileErr(t testing.TB, doc string, at ...status.Path) (*Validator, error) {
	t.Helper()
	root := status.NewPath("openAPIV3Schema")
	if len(at) > 0 {
		root = at[0]
	}
	s, err := schema.FromOpenAPI([]byte(doc))
	if err != nil {
		t.Fatalf("FromOpenAPI: %v", err)
	}
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := e.Compile(s, root)
	if err != nil {
		return nil, err
	}
	return rv.(*Validator), nil
}

// check validates obj (and old) and returns the errors and warnings as
// strings.
func check(v *Validator, obj, old map[string]any) ([]string, []string) {
	errs, warns := v.Validate(context.Background(), obj, old)
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out, warns
}

func joined(l []string) string { return strings.Join(l, "\n") }

func compileWith(t testing.TB, e *Engine, doc string) *Validator {
	t.Helper()
	s, err := schema.FromOpenAPI([]byte(doc))
	if err != nil {
		t.Fatalf("FromOpenAPI: %v", err)
	}
	rv, err := e.Compile(s, status.NewPath("openAPIV3Schema"))
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return rv.(*Validator)
}
