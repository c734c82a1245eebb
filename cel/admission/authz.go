package admission

import (
	"context"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/kapi-dev/kapi/auth"
)

// The authorizer library: authorizer.group(g).resource(r)...check(verb),
// authorizer.path(p).check(verb), authorizer.serviceAccount(ns, name),
// and the Decision's allowed(), reason(), errored() and error(), as
// kube-apiserver offers them to admission expressions.
var (
	authorizerType    = cel.ObjectType("kubernetes.authorization.Authorizer")
	pathCheckType     = cel.ObjectType("kubernetes.authorization.PathCheck")
	groupCheckType    = cel.ObjectType("kubernetes.authorization.GroupCheck")
	resourceCheckType = cel.ObjectType("kubernetes.authorization.ResourceCheck")
	decisionType      = cel.ObjectType("kubernetes.authorization.Decision")
)

func authzLib() cel.EnvOption {
	str := cel.StringType
	fn := func(name, id string, args []*cel.Type, out *cel.Type, impl func(...ref.Val) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, args, out, cel.FunctionBinding(impl)))
	}
	return cel.Lib(authzLibrary{opts: []cel.EnvOption{
		fn("path", "authorizer_path", []*cel.Type{authorizerType, str}, pathCheckType, authzPath),
		fn("group", "authorizer_group", []*cel.Type{authorizerType, str}, groupCheckType, authzGroup),
		fn("serviceAccount", "authorizer_serviceaccount", []*cel.Type{authorizerType, str, str}, authorizerType, authzServiceAccount),
		fn("resource", "groupcheck_resource", []*cel.Type{groupCheckType, str}, resourceCheckType, authzResource),
		fn("subresource", "resourcecheck_subresource", []*cel.Type{resourceCheckType, str}, resourceCheckType,
			setter(func(r *resourceCheck, s string) { r.subresource = s })),
		fn("namespace", "resourcecheck_namespace", []*cel.Type{resourceCheckType, str}, resourceCheckType,
			setter(func(r *resourceCheck, s string) { r.namespace = s })),
		fn("name", "resourcecheck_name", []*cel.Type{resourceCheckType, str}, resourceCheckType,
			setter(func(r *resourceCheck, s string) { r.name = s })),
		fn("check", "pathcheck_check", []*cel.Type{pathCheckType, str}, decisionType, pathCheckCheck),
		fn("check", "resourcecheck_check", []*cel.Type{resourceCheckType, str}, decisionType, resourceCheckCheck),
		fn("errored", "decision_errored", []*cel.Type{decisionType}, cel.BoolType, decisionField(func(d decision) ref.Val { return types.Bool(d.err != nil) })),
		fn("error", "decision_error", []*cel.Type{decisionType}, str, decisionField(func(d decision) ref.Val {
			if d.err == nil {
				return types.String("")
			}
			return types.String(d.err.Error())
		})),
		fn("allowed", "decision_allowed", []*cel.Type{decisionType}, cel.BoolType, decisionField(func(d decision) ref.Val { return types.Bool(d.decision == auth.DecisionAllow) })),
		fn("reason", "decision_reason", []*cel.Type{decisionType}, str, decisionField(func(d decision) ref.Val { return types.String(d.reason) })),
	}})
}

type authzLibrary struct{ opts []cel.EnvOption }

func (l authzLibrary) CompileOptions() []cel.EnvOption   { return l.opts }
func (authzLibrary) ProgramOptions() []cel.ProgramOption { return nil }

// opaqueVal is the part of ref.Val the library's values share: they
// are only receivers of the library's functions.
type opaqueVal struct{ t *types.Type }

func (o opaqueVal) ConvertToNative(reflect.Type) (any, error) { return nil, errNoConversion }
func (o opaqueVal) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return o.t
	}
	return types.NewErr("type conversion error from '%s' to '%s'", o.t, t)
}
func (o opaqueVal) Equal(ref.Val) ref.Val { return types.False }
func (o opaqueVal) Type() ref.Type        { return o.t }

var errNoConversion = types.NewErr("no native conversion").(*types.Err)

// authorizer checks on behalf of one user.
type authorizer struct {
	opaqueVal
	ctx  context.Context
	user *auth.User
	az   auth.Authorizer
}

func (a *authorizer) Value() any { return a }

func newAuthorizer(ctx context.Context, u *auth.User, az auth.Authorizer) *authorizer {
	return &authorizer{opaqueVal: opaqueVal{authorizerType}, ctx: ctx, user: u, az: az}
}

type pathCheck struct {
	opaqueVal
	a    *authorizer
	path string
}

func (p pathCheck) Value() any { return p }

type groupCheck struct {
	opaqueVal
	a     *authorizer
	group string
}

func (g groupCheck) Value() any { return g }

type resourceCheck struct {
	opaqueVal
	a                                             *authorizer
	group, resource, subresource, namespace, name string
}

func (r resourceCheck) Value() any { return r }

type decision struct {
	opaqueVal
	decision auth.Decision
	reason   string
	err      error
}

func (d decision) Value() any { return d }

func authzPath(args ...ref.Val) ref.Val {
	a, ok := args[0].(*authorizer)
	path, ok2 := args[1].Value().(string)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	if strings.TrimSpace(path) == "" {
		return types.NewErr("path must not be empty")
	}
	return pathCheck{opaqueVal: opaqueVal{pathCheckType}, a: a, path: path}
}

func authzGroup(args ...ref.Val) ref.Val {
	a, ok := args[0].(*authorizer)
	group, ok2 := args[1].Value().(string)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	return groupCheck{opaqueVal: opaqueVal{groupCheckType}, a: a, group: group}
}

func authzServiceAccount(args ...ref.Val) ref.Val {
	a, ok := args[0].(*authorizer)
	ns, ok2 := args[1].Value().(string)
	name, ok3 := args[2].Value().(string)
	if !ok || !ok2 || !ok3 {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	if !dnsSubdomain(name) {
		return types.NewErr("Invalid service account name")
	}
	if !dnsLabel(ns) {
		return types.NewErr("Invalid service account namespace")
	}
	u := &auth.User{Name: "system:serviceaccount:" + ns + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}}
	return &authorizer{opaqueVal: a.opaqueVal, ctx: a.ctx, user: u, az: a.az}
}

func authzResource(args ...ref.Val) ref.Val {
	g, ok := args[0].(groupCheck)
	res, ok2 := args[1].Value().(string)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	if strings.TrimSpace(res) == "" {
		return types.NewErr("resource must not be empty")
	}
	return resourceCheck{opaqueVal: opaqueVal{resourceCheckType}, a: g.a, group: g.group, resource: res}
}

// setter returns the implementation of a ResourceCheck builder method.
func setter(set func(*resourceCheck, string)) func(...ref.Val) ref.Val {
	return func(args ...ref.Val) ref.Val {
		r, ok := args[0].(resourceCheck)
		s, ok2 := args[1].Value().(string)
		if !ok || !ok2 {
			return types.MaybeNoSuchOverloadErr(args[0])
		}
		set(&r, s)
		return r
	}
}

func pathCheckCheck(args ...ref.Val) ref.Val {
	p, ok := args[0].(pathCheck)
	verb, ok2 := args[1].Value().(string)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	return p.a.check(auth.Attributes{User: p.a.user, Verb: verb, Path: p.path})
}

func resourceCheckCheck(args ...ref.Val) ref.Val {
	r, ok := args[0].(resourceCheck)
	verb, ok2 := args[1].Value().(string)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	return r.a.check(auth.Attributes{User: r.a.user, Verb: verb, ResourceRequest: true,
		APIGroup: r.group, APIVersion: "*", Resource: r.resource, Subresource: r.subresource,
		Namespace: r.namespace, Name: r.name})
}

// check asks the authorizer; without one (a server that authorizes no
// one) every request is allowed, as the server itself would.
func (a *authorizer) check(attrs auth.Attributes) ref.Val {
	d := decision{opaqueVal: opaqueVal{decisionType}}
	if a.az == nil {
		d.decision = auth.DecisionAllow
		return d
	}
	d.decision, d.reason, d.err = a.az.Authorize(a.ctx, attrs)
	return d
}

func decisionField(get func(decision) ref.Val) func(...ref.Val) ref.Val {
	return func(args ...ref.Val) ref.Val {
		d, ok := args[0].(decision)
		if !ok {
			return types.MaybeNoSuchOverloadErr(args[0])
		}
		return get(d)
	}
}

// dnsLabel reports whether s is an RFC 1123 label (a namespace name).
func dnsLabel(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (c != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// dnsSubdomain reports whether s is an RFC 1123 subdomain (a service
// account name).
func dnsSubdomain(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if !dnsLabel(part) {
			return false
		}
	}
	return true
}
