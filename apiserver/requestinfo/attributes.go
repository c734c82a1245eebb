package requestinfo

import (
	"net/http"
	"strings"

	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
)

// AttributesOf describes a request to authorizers the way
// kube-apiserver's request info does, from the method, path and query
// alone: a resource request under /api/V/... or /apis/G/V/... with its
// verb, namespace, resource, name and subresource; anything else is a
// non-resource request whose verb is the lower-cased method.
func AttributesOf(r *http.Request, u *auth.User) auth.Attributes {
	var p Path
	p.Parse(r)
	return Attributes(r, u, &p)
}

// Attributes is AttributesOf of r with its path parsed already.
func Attributes(r *http.Request, u *auth.User, p *Path) auth.Attributes {
	a := auth.Attributes{User: u, Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	// The escaped path, as the router splits it: an encoded slash stays
	// inside its segment.
	parts, ok := p.Parts, p.OK
	if !ok || len(parts) < 3 || (parts[0] != "api" && parts[0] != "apis") {
		return a
	}
	prefix := parts[0]
	parts = parts[1:]
	if prefix == "apis" {
		if len(parts) < 3 {
			return a
		}
		a.APIGroup, parts = parts[0], parts[1:]
	}
	a.ResourceRequest = true
	a.APIVersion, parts = parts[0], parts[1:]
	watchPrefix := false
	if len(parts) > 0 && parts[0] == "watch" {
		watchPrefix, parts = true, parts[1:]
	}
	if len(parts) > 0 && parts[0] == "namespaces" {
		if len(parts) > 1 {
			a.Namespace = parts[1]
			if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
				parts = parts[2:]
			}
		}
	}
	if len(parts) > 0 {
		a.Resource = parts[0]
	}
	if len(parts) > 1 {
		a.Name = parts[1]
	}
	if len(parts) > 2 {
		a.Subresource = parts[2]
	}
	a.Verb = Verb(r, a.Name != "", watchPrefix)
	if (a.Verb == "list" || a.Verb == "watch") && a.Name == "" {
		// A list or watch of one name by field selector is a request on
		// that name, as kube-apiserver authorizes it.
		if sel, err := meta.ParseFieldSelector(Query(r).Get("fieldSelector")); err == nil {
			if name, ok := sel.RequiresExactMatch("metadata.name"); ok {
				a.Name = name
			}
		}
	}
	return a
}

// Verb is the authorization verb of a resource request.
func Verb(r *http.Request, item, watchPrefix bool) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case watchPrefix || IsTrue(Query(r).Get("watch")):
			return "watch"
		case item:
			return "get"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if item {
			return "delete"
		}
		return "deletecollection"
	}
	return strings.ToLower(r.Method)
}

// Action names a request the way kube-apiserver's 405 messages do.
func Action(method string, item bool) string {
	switch method {
	case http.MethodPost:
		if item {
			return "create on a named resource"
		}
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	case http.MethodGet:
		return "get"
	}
	return strings.ToLower(method)
}
