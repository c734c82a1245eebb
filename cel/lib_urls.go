package cel

import (
	"net/url"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// urlType is the type of url(...) values.
var urlType = cel.ObjectType("kubernetes.URL")

// urlsLib is Kubernetes' URL library: url and isURL parse absolute URIs
// and absolute paths as HTTP request URIs are parsed; getScheme,
// getHost, getHostname, getPort, getEscapedPath and getQuery read them.
func urlsLib() cel.EnvOption {
	l := &library{name: "urls", costs: map[string]overloadCost{
		"string_to_url": scanCost(stringFactor),
		"is_url_string": scanCost(stringFactor),
	}}
	str := cel.StringType
	getter := func(name, id string, get func(*url.URL) ref.Val, out *cel.Type) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{urlType}, out,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				u, err := unwrap[*url.URL](v)
				if err != nil {
					return err
				}
				return get(u)
			})))
	}
	l.funcs = []cel.EnvOption{
		cel.Function("url", cel.Overload("string_to_url", []*cel.Type{str}, urlType, cel.UnaryBinding(toURL))),
		cel.Function("isURL", cel.Overload("is_url_string", []*cel.Type{str}, cel.BoolType, cel.UnaryBinding(isURL))),
		getter("getScheme", "url_get_scheme", func(u *url.URL) ref.Val { return types.String(u.Scheme) }, str),
		getter("getHost", "url_get_host", func(u *url.URL) ref.Val { return types.String(u.Host) }, str),
		getter("getHostname", "url_get_hostname", func(u *url.URL) ref.Val { return types.String(u.Hostname()) }, str),
		getter("getPort", "url_get_port", func(u *url.URL) ref.Val { return types.String(u.Port()) }, str),
		getter("getEscapedPath", "url_get_escaped_path", func(u *url.URL) ref.Val { return types.String(u.EscapedPath()) }, str),
		getter("getQuery", "url_get_query", query, cel.MapType(str, cel.ListType(str))),
	}
	return l.option()
}

func parseURL(s string) (*url.URL, error) {
	// ParseRequestURI insists on an absolute URI or path; Parse then
	// reads the fragment, which ParseRequestURI would keep in the path.
	if _, err := url.ParseRequestURI(s); err != nil {
		return nil, err
	}
	return url.Parse(s)
}

func toURL(v ref.Val) ref.Val {
	s, ok := v.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	u, err := parseURL(string(s))
	if err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	return opaque[*url.URL]{t: urlType, v: u, equal: func(a, b *url.URL) bool { return a.String() == b.String() }}
}

func isURL(v ref.Val) ref.Val {
	s, ok := v.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	_, err := parseURL(string(s))
	return types.Bool(err == nil)
}

func query(u *url.URL) ref.Val {
	out := map[ref.Val]ref.Val{}
	for k, v := range u.Query() {
		out[types.String(k)] = types.NewStringList(types.DefaultTypeAdapter, v)
	}
	return types.NewRefValMap(types.DefaultTypeAdapter, out)
}
