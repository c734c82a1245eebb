package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
)

// BaseEnv returns the environment every kapi expression compiles in:
// CEL's standard definitions with the options and Kubernetes libraries
// described in the package documentation, and no variables. Other
// packages of this module (admission policies) extend it with theirs.
func BaseEnv() (*cel.Env, error) { return baseEnv() }

// ProgramOptions are the options kapi builds every program with: cost
// tracking limited to perCallLimit per evaluation, has() free, and the
// context checked in comprehensions.
func ProgramOptions(perCallLimit uint64) []cel.ProgramOption {
	return programOptions(perCallLimit)
}

// JSONValue returns the CEL value of a decoded JSON value that no schema
// describes (map[string]any, []any, string, int64, float64, bool, nil),
// as kube-apiserver shows an unstructured object to admission
// expressions. Maps and lists are wrapped, not copied.
func JSONValue(x any) ref.Val { return dyn(x) }
