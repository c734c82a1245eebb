package admission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	kadm "github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/meta"
)

// RequestJSON returns the request variable of a: the AdmissionRequest
// (v1) kube-apiserver shows admission expressions, with kind and
// resource in the version the matching rule chose (version; the
// request's own when empty) and requestKind and requestResource in the
// request's. It has no uid, object or oldObject: expressions read those
// as variables of their own.
func RequestJSON(a *kadm.Request, version string) map[string]any {
	if version == "" {
		version = a.Kind.Version
	}
	req := map[string]any{
		"uid":             "",
		"kind":            gvk(a.Kind.Group, version, a.Kind.Kind),
		"resource":        gvr(a.Resource.Group, version, a.Resource.Resource),
		"requestKind":     gvk(a.Kind.Group, a.Kind.Version, a.Kind.Kind),
		"requestResource": gvr(a.Resource.Group, a.Kind.Version, a.Resource.Resource),
		"operation":       string(a.Operation),
		"userInfo":        userInfo(a),
		"dryRun":          a.DryRun,
	}
	if a.Subresource != "" {
		req["subResource"], req["requestSubResource"] = a.Subresource, a.Subresource
	}
	if a.Name != "" {
		req["name"] = a.Name
	}
	if a.Namespace != "" {
		req["namespace"] = a.Namespace
	}
	if opts := optionsJSON(a.Options); opts != nil {
		req["options"] = opts
	}
	return req
}

func gvk(g, v, k string) map[string]any {
	return map[string]any{"group": g, "version": v, "kind": k}
}

func gvr(g, v, r string) map[string]any {
	return map[string]any{"group": g, "version": v, "resource": r}
}

func userInfo(a *kadm.Request) map[string]any {
	u := map[string]any{}
	if a.User == nil {
		return u
	}
	if a.User.Name != "" {
		u["username"] = a.User.Name
	}
	if a.User.UID != "" {
		u["uid"] = a.User.UID
	}
	if len(a.User.Groups) > 0 {
		groups := make([]any, len(a.User.Groups))
		for i, g := range a.User.Groups {
			groups[i] = g
		}
		u["groups"] = groups
	}
	if len(a.User.Extra) > 0 {
		extra := map[string]any{}
		for k, vs := range a.User.Extra {
			l := make([]any, len(vs))
			for i, v := range vs {
				l[i] = v
			}
			extra[k] = l
		}
		u["extra"] = extra
	}
	return u
}

// optionsJSON is the JSON form of the operation's options, with the
// kind and apiVersion kube-apiserver gives them.
func optionsJSON(opts any) map[string]any {
	if opts == nil {
		return nil
	}
	m, err := ToJSON(opts)
	if err != nil || m == nil {
		return nil
	}
	kind := ""
	switch opts.(type) {
	case *meta.CreateOptions:
		kind = "CreateOptions"
	case *meta.UpdateOptions:
		kind = "UpdateOptions"
	case *meta.DeleteOptions:
		kind = "DeleteOptions"
	}
	if kind != "" {
		m["kind"], m["apiVersion"] = kind, "meta.k8s.io/v1"
	}
	return m
}

// ToJSON returns the JSON form of v (an object) as CEL reads it:
// integers as int64, other numbers as float64. A nil object is nil.
func ToJSON(v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	m, ok := numbers(x).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object: %s", b)
	}
	return m, nil
}

// numbers replaces json.Numbers by int64 or float64 in place.
func numbers(x any) any {
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return x
}
