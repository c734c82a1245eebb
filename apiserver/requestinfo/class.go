package requestinfo

import (
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/observe"
)

// Class is what the filters around the router need to know of a
// request before it is routed: whether it is long-running (a watch),
// whether it mutates, and whether it is a probe, which no limit applies
// to.
type Class struct {
	LongRunning bool
	Mutating    bool
	Probe       bool
}

// Classify looks at the method, path and query only: it allocates nothing
// for the common requests.
func Classify(r *http.Request) Class {
	path := r.URL.Path
	switch {
	case isProbePath(path):
		return Class{Probe: true}
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		return Class{LongRunning: isWatch(r)}
	case r.Method == http.MethodOptions:
		return Class{}
	}
	return Class{Mutating: true}
}

// isProbePath reports whether path is a health check, which load balancers
// and kubelets poll and which must answer while the server is saturated
// or shutting down.
func isProbePath(path string) bool {
	for _, p := range [...]string{"/healthz", "/livez", "/readyz"} {
		if path == p || strings.HasPrefix(path, p) && path[len(p)] == '/' {
			return true
		}
	}
	return false
}

// isWatch reports whether a GET is a watch: ?watch=true (or 1), or the
// deprecated /watch/ path segment.
func isWatch(r *http.Request) bool {
	if q := r.URL.RawQuery; strings.Contains(q, "watch=") {
		v := Query(r).Get("watch")
		if v != "" && v != "0" && v != "false" {
			return true
		}
	}
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/api/"):
		return strings.HasPrefix(afterSegments(p[len("/api/"):], 1), "watch/")
	case strings.HasPrefix(p, "/apis/"):
		return strings.HasPrefix(afterSegments(p[len("/apis/"):], 2), "watch/")
	}
	return false
}

// afterSegments returns p without its first n "/"-separated segments.
func afterSegments(p string, n int) string {
	for ; n > 0; n-- {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return ""
		}
		p = p[i+1:]
	}
	return p
}

// Labels computes kube-apiserver's metric labels of a request from its
// path, as kube-apiserver's request info does. It runs only when the
// server has an Observer.
func Labels(r *http.Request, class Class, path *Path) observe.RequestLabels {
	l := observe.RequestLabels{Component: "apiserver", DryRun: dryRunLabel(r.URL)}
	parts := path.Parts
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		l.Version, rest = parts[1], parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		l.Group, l.Version, rest = parts[1], parts[2], parts[3:]
	default:
		l.Verb = otherVerb(r.Method)
		return l
	}
	if len(rest) > 0 && rest[0] == "watch" {
		rest = rest[1:]
	}
	namespace, name := "", ""
	if len(rest) >= 3 && rest[0] == "namespaces" {
		namespace, rest = rest[1], rest[2:]
	} else if len(rest) == 2 && rest[0] == "namespaces" {
		name = rest[1]
	}
	if len(rest) == 0 {
		// the resource list of a group-version: not a resource request
		l.Group, l.Version = "", ""
		l.Verb = otherVerb(r.Method)
		return l
	}
	l.Resource = rest[0]
	if len(rest) > 1 {
		name = rest[1]
	}
	if len(rest) > 2 {
		l.Subresource = rest[2]
	}
	switch {
	case name != "" || r.Method == http.MethodPost:
		l.Scope = "resource"
	case namespace != "":
		l.Scope = "namespace"
	default:
		l.Scope = "cluster"
	}
	l.Verb = reportedVerb(r, l.Scope, class)
	return l
}

// reportedVerb is kube-apiserver's verb label: the method upper-cased,
// with LIST for a GET of a collection, WATCH for a watch and APPLY for a
// server-side apply patch.
func reportedVerb(r *http.Request, scope string, class Class) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case class.LongRunning:
			return "WATCH"
		case scope != "resource":
			return "LIST"
		}
		return "GET"
	case http.MethodPatch:
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/apply-patch") {
			return "APPLY"
		}
		return "PATCH"
	case http.MethodPost, http.MethodPut, http.MethodDelete:
		return r.Method
	}
	return "other"
}

// otherVerb is the verb label of a request outside the resource API.
func otherVerb(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return method
	}
	return "other"
}

// dryRunLabel is the request's dryRun values, sorted, deduplicated and
// joined by commas, as kube-apiserver labels them; "" when none.
func dryRunLabel(u *url.URL) string {
	if !strings.Contains(u.RawQuery, "dryRun") {
		return ""
	}
	vals := u.Query()["dryRun"]
	for _, v := range vals {
		if v != "All" {
			return "invalid"
		}
	}
	sort.Strings(vals)
	out := vals[:0]
	for i, v := range vals {
		if i == 0 || v != vals[i-1] {
			out = append(out, v)
		}
	}
	return strings.Join(out, ",")
}

// Query returns the request's query parameters for reading: nil, which
// reads as empty, when there are none, as for most gets, so that the
// several filters that look at the query do not each allocate a map.
func Query(r *http.Request) url.Values {
	if r.URL.RawQuery == "" {
		return nil
	}
	return r.URL.Query()
}
