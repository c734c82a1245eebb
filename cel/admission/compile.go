package admission

import (
	"fmt"

	"github.com/google/cel-go/cel"

	kcel "github.com/kapi-dev/kapi/cel"
)

// Compiler compiles admission expressions (matchConditions, policies'
// variables, validations, messages, audit annotations and mutations) in
// kube-apiserver's CEL environment for admission. It is safe for
// concurrent use; build one per server.
type Compiler struct {
	base *cel.Env
}

// NewCompiler returns a compiler with the libraries of the cel module
// and the authorizer library.
func NewCompiler() (*Compiler, error) {
	base, err := kcel.BaseEnv()
	if err != nil {
		return nil, fmt.Errorf("cel/admission: building the environment: %w", err)
	}
	return &Compiler{base: base}, nil
}

// program is one compiled expression. An expression that does not
// compile keeps its error, reported when it is evaluated, as
// kube-apiserver defers it so that failurePolicy decides.
type program struct {
	expr string
	prog cel.Program
	out  *cel.Type
	err  error
}

// compile compiles expr in env; want is the type it must evaluate to
// (nil: any).
func compile(env *cel.Env, expr string, want *cel.Type) *program {
	if want == nil {
		return compileOneOf(env, expr, nil)
	}
	return compileOneOf(env, expr, []*cel.Type{want})
}

// compileOneOf compiles expr in env; it must evaluate to one of wants
// (none: any), exactly, as kube-apiserver checks.
func compileOneOf(env *cel.Env, expr string, wants []*cel.Type) *program {
	p := &program{expr: expr}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		p.err = fmt.Errorf("compilation failed: %s", iss.String())
		return p
	}
	if err := checkType(ast.OutputType(), wants); err != nil {
		p.err = err
		return p
	}
	prog, err := env.Program(ast, kcel.ProgramOptions(PerCallLimit)...)
	if err != nil {
		p.err = fmt.Errorf("program instantiation failed: %w", err)
		return p
	}
	p.prog, p.out = prog, ast.OutputType()
	return p
}

// checkType reports an output type that is none of wants.
func checkType(out *cel.Type, wants []*cel.Type) error {
	if len(wants) == 0 {
		return nil
	}
	for _, w := range wants {
		if out.IsExactType(w) {
			return nil
		}
	}
	if len(wants) == 1 {
		return fmt.Errorf("must evaluate to %v but got %v", wants[0], out)
	}
	return fmt.Errorf("must evaluate to one of %v but got %v", wants, out)
}
