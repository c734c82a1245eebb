package auth

import (
	"context"
	"errors"
	"strings"
)

// Attributes describe one request to an Authorizer, in kube-apiserver's
// terms.
type Attributes struct {
	User *User
	// Verb is get, list, watch, create, update, patch, delete,
	// deletecollection, or a special verb (impersonate, escalate, bind,
	// …); for non-resource requests the lower-cased HTTP method.
	Verb string
	// ResourceRequest is true for requests on API resources, false for
	// non-resource paths (/healthz, /version, /openapi/v3, …).
	ResourceRequest bool
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Namespace       string
	Name            string
	// Path is the request path of a non-resource request.
	Path string
}

// Decision is an Authorizer's answer.
type Decision int

// Authorizers allow, deny, or leave the decision to the next one.
const (
	DecisionNoOpinion Decision = iota
	DecisionAllow
	DecisionDeny
)

// Authorizer decides whether a request may proceed. The reason explains a
// decision to the user; an error means the authorizer could not decide.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (d Decision, reason string, err error)
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, a Attributes) (Decision, string, error)

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	return f(ctx, a)
}

// Authorizers asks each authorizer in turn; the first that allows or
// denies decides, as kube-apiserver's authorization chain does. When none
// decides, the answer is no opinion with the reasons given joined, and
// errors are returned only then.
type Authorizers []Authorizer

// Authorize runs the chain.
func (as Authorizers) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	var reasons []string
	var errs []error
	for _, z := range as {
		d, reason, err := z.Authorize(ctx, a)
		if err != nil {
			errs = append(errs, err)
		}
		if d != DecisionNoOpinion {
			return d, reason, nil
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
	}
	return DecisionNoOpinion, strings.Join(reasons, "\n"), errors.Join(errs...)
}

// RulesFor resolves the rules of the first authorizer in the chain that
// can list them.
func (as Authorizers) RulesFor(ctx context.Context, u *User, namespace string) (Rules, error) {
	var out Rules
	for _, z := range as {
		if rr, ok := z.(RuleResolver); ok {
			r, err := rr.RulesFor(ctx, u, namespace)
			out.Resource = append(out.Resource, r.Resource...)
			out.NonResource = append(out.NonResource, r.NonResource...)
			out.Incomplete = out.Incomplete || r.Incomplete
			if err != nil {
				return out, err
			}
		} else {
			out.Incomplete = true
		}
	}
	return out, nil
}

// AlwaysAllow allows every request (--authorization-mode=AlwaysAllow).
type AlwaysAllow struct{}

// Authorize allows.
func (AlwaysAllow) Authorize(context.Context, Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

// RulesFor answers that everything is allowed.
func (AlwaysAllow) RulesFor(context.Context, *User, string) (Rules, error) {
	return Rules{
		Resource:    []ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
		NonResource: []NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
	}, nil
}

// PrivilegedGroups allows everything to members of the groups (kube-apiserver
// does so for system:masters) and has no opinion on everyone else.
type PrivilegedGroups []string

// Authorize allows members.
func (p PrivilegedGroups) Authorize(_ context.Context, a Attributes) (Decision, string, error) {
	for _, g := range p {
		if a.User.InGroup(g) {
			return DecisionAllow, "", nil
		}
	}
	return DecisionNoOpinion, "", nil
}

// RulesFor lists everything for members, nothing for others.
func (p PrivilegedGroups) RulesFor(ctx context.Context, u *User, _ string) (Rules, error) {
	if d, _, _ := p.Authorize(ctx, Attributes{User: u}); d == DecisionAllow {
		return AlwaysAllow{}.RulesFor(ctx, u, "")
	}
	return Rules{}, nil
}

// RuleResolver is implemented by authorizers that can list what a user
// may do in a namespace (SelfSubjectRulesReview, kubectl auth can-i
// --list).
type RuleResolver interface {
	RulesFor(ctx context.Context, u *User, namespace string) (Rules, error)
}

// Rules is what a user may do: resource rules, non-resource rules, and
// whether the list may be missing some (an authorizer that cannot list).
type Rules struct {
	Resource    []ResourceRule
	NonResource []NonResourceRule
	Incomplete  bool
}

// ResourceRule allows verbs on resources, as in a SelfSubjectRulesReview.
type ResourceRule struct {
	Verbs         []string `json:"verbs"`
	APIGroups     []string `json:"apiGroups,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// NonResourceRule allows verbs on non-resource paths.
type NonResourceRule struct {
	Verbs           []string `json:"verbs"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}
