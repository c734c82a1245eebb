package auth

import (
	"errors"
	"net/http"
)

// Well-known user and group names.
const (
	// Anonymous is the user of an unauthenticated request.
	Anonymous = "system:anonymous"
	// AllAuthenticated is the group of every authenticated user.
	AllAuthenticated = "system:authenticated"
	// AllUnauthenticated is the group of the anonymous user.
	AllUnauthenticated = "system:unauthenticated"
	// SystemPrivilegedGroup is the group whose members may do anything.
	SystemPrivilegedGroup = "system:masters"
)

// Authenticator finds out who sent a request. It returns the user and
// true when it recognises a credential on the request; false and no error
// when the request carries no credential it knows; an error when the
// request carries one of its credentials and that credential is invalid.
// Errors never contain the credential itself.
type Authenticator interface {
	AuthenticateRequest(r *http.Request) (*User, bool, error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(r *http.Request) (*User, bool, error)

// AuthenticateRequest calls f.
func (f AuthenticatorFunc) AuthenticateRequest(r *http.Request) (*User, bool, error) { return f(r) }

// headerStripper is implemented by authenticators whose credentials are
// request headers that must not reach the rest of the server unless they
// authenticated the request (see [RequestHeader]).
type headerStripper interface{ stripHeaders(h http.Header) }

// Chain authenticates with each of its authenticators in turn, as
// kube-apiserver's authentication chain does: the first that recognises
// the request wins, and its user gets the group system:authenticated.
//
// When none recognises the request: if any of them reported an invalid
// credential, the request is rejected with that error (a presented but
// invalid credential is never anonymous); otherwise the user is
// system:anonymous in system:unauthenticated when Anonymous is set, and
// the request is unauthenticated (401) when it is not.
//
// Front-proxy headers of [RequestHeader] authenticators in the chain are
// removed from every request they did not authenticate.
type Chain struct {
	Authenticators []Authenticator
	// Anonymous lets requests without a credential in as system:anonymous.
	Anonymous bool
}

var _ Authenticator = Chain{}

// ErrUnauthenticated is returned by a Chain without Anonymous for a
// request that carries no credential.
var ErrUnauthenticated = errors.New("no credentials")

// AuthenticateRequest runs the chain.
func (c Chain) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	var errs []error
	var user *User
	var by Authenticator
	for _, a := range c.Authenticators {
		u, ok, err := a.AuthenticateRequest(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok && u != nil {
			user, by = u, a
			break
		}
	}
	for _, a := range c.Authenticators {
		if hs, ok := a.(headerStripper); ok && a != by {
			hs.stripHeaders(r.Header)
		}
	}
	switch {
	case user != nil:
		return withAuthenticatedGroup(user), true, nil
	case len(errs) > 0:
		return nil, false, errors.Join(errs...)
	case c.Anonymous:
		return &User{Name: Anonymous, Groups: []string{AllUnauthenticated}}, true, nil
	}
	return nil, false, ErrUnauthenticated
}

// withAuthenticatedGroup returns u with system:authenticated among its
// groups (a copy when it had to be added).
func withAuthenticatedGroup(u *User) *User {
	if u.InGroup(AllAuthenticated) || u.Name == Anonymous {
		return u
	}
	c := *u
	c.Groups = append(append(make([]string, 0, len(u.Groups)+1), u.Groups...), AllAuthenticated)
	return &c
}
