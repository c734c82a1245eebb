package admission

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/google/cel-go/common/types"

	"github.com/kapi-dev/kapi/apiserver"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// TypeSource is what type checking reads of a server: the resources it
// serves and their schemas (a *apiserver.Server).
type TypeSource interface {
	Served() []apiserver.ServedResource
	SchemaSource
}

// maxTypesToCheck bounds the kinds a policy is checked against, as in
// kube-apiserver.
const maxTypesToCheck = 10

// typedVars are the types of object, oldObject and params for one kind,
// with the object types their schemas declare.
type typedVars struct {
	object, params *types.Type
	objects        objectTypes
}

// gvkOf is a kind with the resource that serves it.
type gvkOf struct {
	group, version, kind, resource string
}

// String is kube's rendering of a GroupVersionKind.
func (g gvkOf) String() string { return g.group + "/" + g.version + ", Kind=" + g.kind }

// TypeCheck checks the validations and messageExpressions of a
// ValidatingAdmissionPolicy against the schemas of the kinds its
// matchConstraints name (without wildcards; at most 10) and of its
// paramKind, as kube's type checking controller does, and returns the
// warnings it writes in status.typeChecking: for each expression that
// does not compile for some kind, the kind and CEL's issues.
func (c *Compiler) TypeCheck(p *arv1.ValidatingAdmissionPolicy, src TypeSource) []arv1.ExpressionWarning {
	served := src.Served()
	kinds := typesToCheck(p, served)
	var params *types.Type
	paramObjects := objectTypes{}
	if pk := p.Spec.ParamKind; pk != nil {
		if g, ok := paramGVK(pk, served); ok {
			if s, ok := src.Schema(g.group, g.version, g.resource); ok {
				params = declType(s, g.kind+"Params", true, paramObjects)
			}
		}
	}
	var warnings []arv1.ExpressionWarning
	add := func(path status.Path, expr string) {
		if w := c.checkKinds(p, kinds, src, params, paramObjects, expr); w != "" {
			warnings = append(warnings, arv1.ExpressionWarning{FieldRef: path.String(), Warning: w})
		}
	}
	for i, v := range p.Spec.Validations {
		vp := status.NewPath("spec", "validations").Index(i)
		add(vp.Child("expression"), v.Expression)
		if v.MessageExpression != "" {
			add(vp.Child("messageExpression"), v.MessageExpression)
		}
	}
	return warnings
}

// checkKinds compiles expr for each kind and returns kube's warning:
// "<kind>: <issues>\n" for each kind it does not compile for.
func (c *Compiler) checkKinds(p *arv1.ValidatingAdmissionPolicy, kinds []gvkOf, src TypeSource, params *types.Type, paramObjects objectTypes, expr string) string {
	var msgs []string
	for _, k := range kinds {
		s, ok := src.Schema(k.group, k.version, k.resource)
		if !ok {
			continue
		}
		objects := objectTypes{}
		for n, t := range requestTypes {
			objects[n] = t
		}
		for n, t := range paramObjects {
			objects[n] = t
		}
		tv := &typedVars{object: declType(s, k.kind, true, objects), params: params, objects: objects}
		if tv.object == nil {
			tv.object = types.DynType
		}
		if tv.params == nil {
			tv.params = types.DynType
		}
		if msg := c.typeCheckOne(p, tv, expr); msg != "" {
			msgs = append(msgs, fmt.Sprintf("%v: %s\n", k, msg))
		}
	}
	return strings.Join(msgs, "\n")
}

// typeCheckOne compiles expr, after the policy's variables, with the
// types of tv; it returns CEL's issues, "" when it compiles.
func (c *Compiler) typeCheckOne(p *arv1.ValidatingAdmissionPolicy, tv *typedVars, expr string) string {
	spec := envSpec{params: p.Spec.ParamKind != nil, typed: tv}
	_, spec, err := c.compileVariables(p.Spec.Variables, spec)
	if err != nil {
		return fmt.Sprintf("type checking error: %v", err)
	}
	env, err := c.env(spec)
	if err != nil {
		return fmt.Sprintf("type checking error: %v", err)
	}
	if _, iss := env.Compile(expr); iss != nil && iss.Err() != nil {
		return iss.String()
	}
	return ""
}

// typesToCheck are the kinds of the resources the policy's resource
// rules name without wildcards, sorted by group, version and kind.
func typesToCheck(p *arv1.ValidatingAdmissionPolicy, served []apiserver.ServedResource) []gvkOf {
	if p.Spec.MatchConstraints == nil {
		return nil
	}
	seen := map[gvkOf]bool{}
	var out []gvkOf
	for _, r := range p.Spec.MatchConstraints.ResourceRules {
		groups, versions := noWildcards(r.APIGroups), noWildcards(r.APIVersions)
		var resources []string
		for _, res := range r.Resources {
			if !strings.ContainsAny(res, "*/") {
				resources = append(resources, res)
			}
		}
		for _, g := range sorted(groups) {
			for _, v := range sorted(versions) {
				for _, res := range sorted(resources) {
					for _, sr := range served {
						k := gvkOf{group: sr.Group, version: sr.Version, kind: sr.Kind, resource: sr.Resource}
						if sr.Group != g || sr.Version != v || sr.Resource != res || seen[k] {
							continue
						}
						seen[k] = true
						out = append(out, k)
						if len(out) == maxTypesToCheck {
							return sortKinds(out)
						}
					}
				}
			}
		}
	}
	return sortKinds(out)
}

// noWildcards is list, nil when any entry has a wildcard.
func noWildcards(list []string) []string {
	for _, x := range list {
		if strings.Contains(x, "*") {
			return nil
		}
	}
	return list
}

func sorted(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

func sortKinds(ks []gvkOf) []gvkOf {
	sort.Slice(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.group != b.group {
			return a.group < b.group
		}
		if a.version != b.version {
			return a.version < b.version
		}
		return a.kind < b.kind
	})
	return ks
}

// paramGVK finds the resource serving a paramKind.
func paramGVK(pk *arv1.ParamKind, served []apiserver.ServedResource) (gvkOf, bool) {
	group, version, found := strings.Cut(pk.APIVersion, "/")
	if !found {
		group, version = "", pk.APIVersion
	}
	for _, sr := range served {
		if sr.Group == group && sr.Version == version && sr.Kind == pk.Kind {
			return gvkOf{group: group, version: version, kind: pk.Kind, resource: sr.Resource}, true
		}
	}
	return gvkOf{}, false
}

// declType is the CEL type of values of s, as kube-apiserver derives it
// from an OpenAPI schema for type checking; object types are added to
// objects under name and the paths of their fields. A root has
// apiVersion, kind and ObjectMeta's metadata. nil: no type (the field is
// not declared).
func declType(s *schema.Schema, name string, root bool, objects objectTypes) *types.Type {
	if s == nil {
		return nil
	}
	if s.XIntOrString {
		return types.DynType
	}
	if root {
		s = withTypeAndObjectMeta(s)
	}
	switch s.Type {
	case "array":
		if s.Items == nil {
			return nil
		}
		if t := declType(s.Items, name+".@items", s.Items.XEmbeddedResource, objects); t != nil {
			return types.NewListType(t)
		}
		return nil
	case "object":
		if ap := s.AdditionalProperties; ap != nil {
			if t := declType(ap, name+".@values", ap.XEmbeddedResource, objects); t != nil {
				return types.NewMapType(types.StringType, t)
			}
			return nil
		}
		fields := map[string]*types.Type{}
		for prop, ps := range s.Properties {
			if t := declType(ps, name+"."+prop, ps.XEmbeddedResource, objects); t != nil {
				if esc, ok := escapeField(prop); ok {
					fields[esc] = t
				}
			}
		}
		objects[name] = fields
		return types.NewObjectType(name)
	case "string":
		switch s.Format {
		case "byte":
			return types.BytesType
		case "duration":
			return types.DurationType
		case "date", "date-time":
			return types.TimestampType
		}
		return types.StringType
	case "boolean":
		return types.BoolType
	case "number":
		return types.DoubleType
	case "integer":
		return types.IntType
	}
	return nil
}

// withTypeAndObjectMeta gives a resource's schema apiVersion, kind and
// the full schema of ObjectMeta, as the schemas kube-apiserver resolves
// for type checking have them.
func withTypeAndObjectMeta(s *schema.Schema) *schema.Schema {
	out := *s
	out.Properties = make(map[string]*schema.Schema, len(s.Properties)+3)
	for k, v := range s.Properties {
		out.Properties[k] = v
	}
	if om, err := schema.FromType(reflect.TypeFor[meta.ObjectMeta]()); err == nil {
		out.Properties["metadata"] = om
	}
	for _, k := range []string{"apiVersion", "kind"} {
		if _, ok := out.Properties[k]; !ok {
			out.Properties[k] = &schema.Schema{Type: "string"}
		}
	}
	if out.Type == "" {
		out.Type = "object"
	}
	return &out
}

// escapeField is the CEL name of a property, as kube escapes it; false
// for a name CEL cannot reach.
func escapeField(name string) (string, bool) {
	if name == "" || celReserved[name] {
		if celReserved[name] {
			return "__" + name + "__", true
		}
		return "", false
	}
	if name[0] >= '0' && name[0] <= '9' {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		switch ch := name[i]; {
		case ch == '_':
			b.WriteString("__underscores__")
		case ch == '.':
			b.WriteString("__dot__")
		case ch == '-':
			b.WriteString("__dash__")
		case ch == '/':
			b.WriteString("__slash__")
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9':
			b.WriteByte(ch)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// celReserved are the names CEL reserves, which kube escapes as __x__.
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true, "const": true,
	"continue": true, "else": true, "for": true, "function": true, "if": true, "import": true,
	"let": true, "loop": true, "package": true, "namespace": true, "return": true, "var": true,
	"void": true, "while": true,
}
