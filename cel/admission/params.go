package admission

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
)

// paramSource reads the param objects of a policy's paramKind; nil for
// a policy without one.
type paramSource struct {
	kind  *arv1.ParamKind
	cache apiserver.Cached
}

// paramSource finds the resource of a paramKind among the served ones.
func (v *plugin) paramSource(pk *arv1.ParamKind) (*paramSource, error) {
	if pk == nil {
		return nil, nil
	}
	group, version, found := strings.Cut(pk.APIVersion, "/")
	if !found {
		group, version = "", pk.APIVersion
	}
	for _, r := range v.src.Served() {
		if r.Group == group && r.Version == version && r.Kind == pk.Kind {
			if c, ok := v.src.Cached(r.Group, r.Resource); ok {
				return &paramSource{kind: pk, cache: c}, nil
			}
		}
	}
	return nil, fmt.Errorf("failed to find resource referenced by paramKind: '%s/%s, Kind=%s'", group, version, pk.Kind)
}

// collect returns the params a binding's paramRef selects for a request
// in namespace, as kube-apiserver collects them: one nil param when the
// policy or the binding has none; the named object, or every object the
// selector matches; none (allowed) or an error (Deny) when there are
// none.
func (ps *paramSource) collect(ctx context.Context, ref *arv1.ParamRef, namespace string) ([]map[string]any, error) {
	if ps == nil || ref == nil {
		return []map[string]any{nil}, nil
	}
	if err := ps.cache.Sync(ctx); err != nil {
		return nil, err
	}
	objs, _, err := ps.cache.List(ctx)
	if err != nil {
		return nil, err
	}
	namespaced := isNamespaced(objs)
	paramsNS := ""
	if namespaced {
		paramsNS = namespace
		if ref.Namespace != "" {
			paramsNS = ref.Namespace
		} else if paramsNS == "" {
			return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	}
	var out []map[string]any
	switch {
	case ref.Namespace != "" && !namespaced && len(objs) > 0:
		return nil, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	case ref.Name != "":
		if ref.Selector != nil {
			return nil, errors.New("paramRef.name and paramRef.selector are mutually exclusive")
		}
		out, err = selectParams(objs, paramsNS, func(o meta.Object) bool { return o.GetObjectMeta().Name == ref.Name })
	case ref.Selector != nil:
		out, err = selectParams(objs, paramsNS, func(o meta.Object) bool {
			ok, _ := ref.Selector.Matches(o.GetObjectMeta().Labels)
			return ok
		})
	default:
		return nil, errors.New("one of name or selector must be provided")
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == arv1.DenyAction {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	return out, nil
}

// isNamespaced infers the scope of the param kind from its objects.
func isNamespaced(objs []meta.Object) bool {
	for _, o := range objs {
		if o.GetObjectMeta().Namespace != "" {
			return true
		}
	}
	return false
}

// selectParams returns, as JSON, the objects in namespace ns that keep
// selects.
func selectParams(objs []meta.Object, ns string, keep func(meta.Object) bool) ([]map[string]any, error) {
	var out []map[string]any
	for _, o := range objs {
		if o.GetObjectMeta().Namespace != ns || !keep(o) {
			continue
		}
		m, err := ToJSON(o)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
