package admission

import (
	"context"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/kapi-dev/kapi/auth"
	kcel "github.com/kapi-dev/kapi/cel"
)

// GVR names a resource in one version.
type GVR struct {
	Group, Version, Resource string
}

// Input holds the values of CEL's variables for one request: object and
// oldObject as JSON forms (nil when absent) in the version shown to the
// webhook or policy; request, the AdmissionRequest (v1) as its JSON form
// (see RequestJSON); params and namespaceObject for policies; the user
// and an authorizer for authorizer and authorizer.requestResource, which
// checks Resource, Subresource, Namespace and Name.
type Input struct {
	Object, OldObject map[string]any
	Request           map[string]any
	Params            map[string]any
	NamespaceObject   map[string]any
	User              *auth.User
	Authorizer        auth.Authorizer
	Resource          GVR
	Subresource       string
	Namespace, Name   string
}

// jsonVal is the CEL value of an optional JSON object: null when nil.
func jsonVal(m map[string]any) ref.Val {
	if m == nil {
		return types.NullValue
	}
	return kcel.JSONValue(m)
}

// newActivation returns the activation of in, with budget to spend and
// the variables vars (nil for none).
func newActivation(ctx context.Context, in *Input, budget int64, vars map[string]*program) *activation {
	az := newAuthorizer(ctx, in.User, in.Authorizer)
	a := &activation{ctx: ctx, budget: budget, values: map[string]ref.Val{
		varObject:     jsonVal(in.Object),
		varOldObject:  jsonVal(in.OldObject),
		varRequest:    jsonVal(in.Request),
		varParams:     jsonVal(in.Params),
		varNamespace:  jsonVal(in.NamespaceObject),
		varAuthorizer: az,
		varRequestResource: resourceCheck{opaqueVal: opaqueVal{resourceCheckType}, a: az, group: in.Resource.Group,
			resource: in.Resource.Resource, subresource: in.Subresource, namespace: in.Namespace, name: in.Name},
	}}
	if len(vars) > 0 {
		a.vars = &lazyVars{a: a, progs: vars, done: map[string]ref.Val{}}
	}
	return a
}
