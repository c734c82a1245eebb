package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// The headers of a request made on behalf of another user (kubectl
// --as, --as-group, --as-uid).
const (
	ImpersonateUserHeader        = "Impersonate-User"
	ImpersonateGroupHeader       = "Impersonate-Group"
	ImpersonateUIDHeader         = "Impersonate-Uid"
	ImpersonateExtraHeaderPrefix = "Impersonate-Extra-"
)

// impersonation is what a request's Impersonate-* headers ask for.
type impersonation struct {
	user   string
	uid    string
	groups []string
	extra  map[string][]string
	any    bool // some Impersonate-* header was present
}

// parseImpersonation reads the Impersonate-* headers.
func parseImpersonation(h http.Header) (impersonation, error) {
	var im impersonation
	for key, values := range h {
		switch {
		case key == ImpersonateUserHeader:
			im.any, im.user = true, values[0]
		case key == ImpersonateUIDHeader:
			im.any, im.uid = true, values[0]
		case key == ImpersonateGroupHeader:
			im.any = true
			im.groups = append(im.groups, values...)
		case strings.HasPrefix(key, ImpersonateExtraHeaderPrefix):
			im.any = true
			k := strings.ToLower(key[len(ImpersonateExtraHeaderPrefix):])
			if uk, err := url.PathUnescape(k); err == nil {
				k = uk
			}
			if k == "" {
				return im, status.BadRequest("an Impersonate-Extra- header needs a key")
			}
			if im.extra == nil {
				im.extra = make(map[string][]string)
			}
			im.extra[k] = append(im.extra[k], values...)
		}
	}
	if im.any && im.user == "" {
		return im, status.BadRequest("requested impersonation of groups, uid or extra without impersonating a user")
	}
	sort.Strings(im.groups)
	return im, nil
}

// Impersonate returns the user a request acts as: requester itself when
// the request has no Impersonate-* headers, else the user they name, once
// authz has allowed requester the verb "impersonate" on each of the
// user (users, or serviceaccounts for a service account's user name),
// each group (groups), the uid (authentication.k8s.io uids) and each
// extra value (authentication.k8s.io userextras/<key>), as kube-apiserver
// checks them. A denial is a 403 Forbidden Status worded as
// kube-apiserver words it; malformed headers are a 400. The headers are
// removed from the request.
func Impersonate(ctx context.Context, h http.Header, requester *User, authz Authorizer) (*User, error) {
	im, err := parseImpersonation(h)
	if err != nil || !im.any {
		return requester, err
	}
	for _, a := range im.checks(requester) {
		if authz == nil {
			break
		}
		d, reason, err := authz.Authorize(ctx, a)
		if err != nil {
			return nil, status.InternalError(err)
		}
		if d != DecisionAllow {
			return nil, ForbiddenError(a, reason)
		}
	}
	for key := range h {
		if strings.HasPrefix(key, "Impersonate-") {
			delete(h, key)
		}
	}
	u := &User{Name: im.user, UID: im.uid, Groups: im.groups, Extra: im.extra}
	switch {
	case u.Name == Anonymous:
		if !u.InGroup(AllUnauthenticated) {
			u.Groups = append(u.Groups, AllUnauthenticated)
		}
	case !u.InGroup(AllAuthenticated):
		u.Groups = append(u.Groups, AllAuthenticated)
	}
	return u, nil
}

// checks lists the authorization checks of an impersonation.
func (im impersonation) checks(requester *User) []Attributes {
	base := Attributes{User: requester, Verb: "impersonate", ResourceRequest: true}
	user := base
	if ns, name, ok := serviceAccount(im.user); ok {
		user.Resource, user.Namespace, user.Name = "serviceaccounts", ns, name
	} else {
		user.Resource, user.Name = "users", im.user
	}
	out := []Attributes{user}
	for _, g := range im.groups {
		a := base
		a.Resource, a.Name = "groups", g
		out = append(out, a)
	}
	if im.uid != "" {
		a := base
		a.APIGroup, a.Resource, a.Name = "authentication.k8s.io", "uids", im.uid
		out = append(out, a)
	}
	keys := make([]string, 0, len(im.extra))
	for k := range im.extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range im.extra[k] {
			a := base
			a.APIGroup, a.Resource, a.Subresource, a.Name = "authentication.k8s.io", "userextras", k, v
			out = append(out, a)
		}
	}
	return out
}

// serviceAccount splits a service account's user name,
// system:serviceaccount:<namespace>:<name>.
func serviceAccount(user string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(user, "system:serviceaccount:")
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	return namespace, name, ok && namespace != "" && name != "" && !strings.Contains(name, ":")
}

// ForbiddenMessage words a denial as kube-apiserver does:
//
//	User "alice" cannot get resource "widgets" in API group "stable.example.com" in the namespace "ns1"
func ForbiddenMessage(a Attributes) string {
	name := ""
	if a.User != nil {
		name = a.User.Name
	}
	if !a.ResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", name, a.Verb, a.Path)
	}
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, a.Verb, res, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, a.Verb, res, a.APIGroup)
}

// ForbiddenError is the 403 Status of a denied request:
//
//	widgets.stable.example.com "w1" is forbidden: User "alice" cannot get resource "widgets" in API group "stable.example.com" in the namespace "ns1"
//
// with ": <reason>" after it when the authorizer gave one.
func ForbiddenError(a Attributes, reason string) error {
	msg := ForbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	gr := meta.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	return status.Forbidden(gr, a.Name, plainError(msg))
}

type plainError string

func (e plainError) Error() string { return string(e) }
