package admission

import (
	"fmt"
	"sort"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	kcel "github.com/kapi-dev/kapi/cel"
)

// Limits, as kube-apiserver sets them for admission expressions.
const (
	// PerCallLimit bounds the cost of one evaluation of one expression.
	PerCallLimit = kcel.PerCallLimit
	// RuntimeBudget bounds the cost of all the expressions a binding
	// evaluates for one request.
	RuntimeBudget = kcel.RuntimeBudget
	// ConditionsBudget bounds the cost of the matchConditions of one
	// webhook or binding for one request.
	ConditionsBudget = 2_500_000
	// maxMessageBytes bounds an evaluated messageExpression.
	maxMessageBytes = 5 * 1024
)

// The variables admission expressions see.
const (
	varObject          = "object"
	varOldObject       = "oldObject"
	varRequest         = "request"
	varParams          = "params"
	varNamespace       = "namespaceObject"
	varAuthorizer      = "authorizer"
	varRequestResource = "authorizer.requestResource"
	varVariables       = "variables"
)

// variablesTypeName is the CEL type of the variables object.
const variablesTypeName = "kubernetes.variables"

// envSpec says which optional variables an environment declares.
type envSpec struct {
	params bool
	// patch declares the types mutations construct (Object, JSONPatch)
	// and jsonpatch.escapeKey.
	patch bool
	// noAuthorizer leaves authorizer and authorizer.requestResource
	// undeclared (messageExpressions).
	noAuthorizer bool
	// typed holds the types of object, oldObject and params from the
	// kinds' schemas, for type checking; nil: they are dyn.
	typed *typedVars
	// anyVariables declares variables as a map of any names, for an
	// expression checked without its policy's variables.
	anyVariables bool
	// vars are the policy's variables declared so far, with their
	// types, in the order they are declared.
	vars []namedType
}

type namedType struct {
	name string
	typ  *types.Type
}

// env builds the environment of an expression: the base environment
// with object, oldObject, request, namespaceObject, the authorizer,
// params when the policy has a paramKind, and the variables declared
// before it.
func (c *Compiler) env(spec envSpec) (*cel.Env, error) {
	objectType, paramsType, objects := cel.DynType, cel.DynType, requestTypes
	if t := spec.typed; t != nil {
		objectType, paramsType, objects = t.object, t.params, t.objects
	}
	opts := []cel.EnvOption{
		cel.Variable(varObject, objectType),
		cel.Variable(varOldObject, objectType),
		cel.Variable(varRequest, cel.ObjectType(requestTypeName)),
		cel.Variable(varNamespace, cel.ObjectType(namespaceTypeName)),
		authzLib(),
	}
	if !spec.noAuthorizer {
		opts = append(opts, cel.Variable(varAuthorizer, authorizerType))
		// kube's type checking declares authorizer alone.
		if spec.typed == nil {
			opts = append(opts, cel.Variable(varRequestResource, resourceCheckType))
		}
	}
	if spec.anyVariables {
		opts = append(opts, cel.Variable(varVariables, cel.MapType(cel.StringType, cel.DynType)))
	}
	if spec.params {
		opts = append(opts, cel.Variable(varParams, paramsType))
	}
	var provider types.Provider = &typesProvider{Provider: c.base.CELTypeProvider(), objects: objects}
	if spec.patch {
		provider = &patchProvider{Provider: provider}
		opts = append(opts, jsonPatchLib())
	}
	if len(spec.vars) > 0 {
		prov := &varsProvider{fields: map[string]*types.Type{}, Provider: provider}
		for _, v := range spec.vars {
			prov.fields[v.name] = v.typ
			prov.order = append(prov.order, v.name)
		}
		sort.Strings(prov.order)
		provider = prov
		opts = append(opts, cel.Variable(varVariables, cel.ObjectType(variablesTypeName)))
	}
	opts = append(opts, cel.CustomTypeProvider(provider))
	env, err := c.base.Extend(opts...)
	if err != nil {
		return nil, fmt.Errorf("unexpected error loading CEL environment: %w", err)
	}
	return env, nil
}

// varsProvider declares the variables object: one field per variable,
// of the type its expression evaluates to.
type varsProvider struct {
	types.Provider
	fields map[string]*types.Type
	order  []string
}

func (p *varsProvider) FindStructType(name string) (*types.Type, bool) {
	if name == variablesTypeName {
		return types.NewTypeTypeWithParam(types.NewObjectType(variablesTypeName)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *varsProvider) FindStructFieldNames(name string) ([]string, bool) {
	if name == variablesTypeName {
		return append([]string(nil), p.order...), true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *varsProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if name != variablesTypeName {
		return p.Provider.FindStructFieldType(name, field)
	}
	t, ok := p.fields[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: t}, true
}

func (p *varsProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if name == variablesTypeName {
		return types.NewErr("objects of type %s cannot be created", name)
	}
	return p.Provider.NewValue(name, fields)
}
