package auth

import "context"

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
