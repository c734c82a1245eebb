package reviews

import (
	"net/http"

	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/status"
)

// errInvalidBearerToken is what kube-apiserver's bearer token
// authenticator says of a token none of its token authenticators
// accepts, which is what an audience-agnostic authenticator does when
// asked for audiences the server is not.
const errInvalidBearerToken = "invalid bearer token"

// tokenReview authenticates the review's token with the server's own
// authenticators, as kube-apiserver answers a TokenReview.
func (s *Handler) tokenReview(r *http.Request, rv *tokenReview) (*tokenReview, error) {
	rv.TypeMeta.Kind, rv.TypeMeta.APIVersion = "TokenReview", "authentication.k8s.io/v1"
	if rv.Spec.Token == "" {
		return nil, status.BadRequest("token is required for TokenReview in authentication")
	}
	if s.Authenticator == nil {
		return rv, nil
	}
	auds := rv.Spec.Audiences
	if len(auds) == 0 {
		auds = s.APIAudiences
	}
	// kapi's authenticators know no audiences: like kube-apiserver's
	// audience-agnostic ones, they accept a token only for the audiences
	// the server itself is, and say so in the answer.
	var granted []string
	if len(auds) > 0 {
		if granted = intersect(s.APIAudiences, auds); len(granted) == 0 {
			rv.Status.Error = errInvalidBearerToken
			return rv, nil
		}
	}
	probe, err := http.NewRequestWithContext(r.Context(), http.MethodPost, "/", http.NoBody)
	if err != nil {
		return nil, status.InternalError(err)
	}
	probe.Header.Set("Authorization", "Bearer "+rv.Spec.Token)
	u, ok, err := s.Authenticator.AuthenticateRequest(probe)
	if err != nil {
		rv.Status.Error = err.Error()
	}
	if !ok || u == nil || err != nil {
		return rv, nil
	}
	rv.Status.Authenticated = true
	rv.Status.User = userInfoOf(u)
	rv.Status.Audiences = granted
	return rv, nil
}

// intersect lists the audiences of want that have also, in want's order.
func intersect(have, want []string) []string {
	var out []string
	for _, w := range want {
		for _, h := range have {
			if w == h {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

// subjectAccessReview asks the server's authorizer whether the review's
// subject may do what it names, as kube-apiserver answers a
// SubjectAccessReview; namespace is the request path's for a
// LocalSubjectAccessReview, "" for a SubjectAccessReview.
func (s *Handler) subjectAccessReview(r *http.Request, rv *subjectAccessReview, namespace string) (*subjectAccessReview, error) {
	kind := "SubjectAccessReview"
	if namespace != "" {
		kind = "LocalSubjectAccessReview"
		if rv.Namespace != "" && rv.Namespace != namespace {
			return nil, status.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		rv.Namespace = namespace
	}
	if errs := validateSubjectAccessReview(rv, namespace != ""); len(errs) > 0 {
		return nil, status.Invalid(reviewGroupKind, "", errs)
	}
	u := &auth.User{Name: rv.Spec.User, UID: rv.Spec.UID, Groups: rv.Spec.Groups}
	if len(rv.Spec.Extra) > 0 {
		u.Extra = make(map[string][]string, len(rv.Spec.Extra))
		for k, v := range rv.Spec.Extra {
			u.Extra[k] = v
		}
	}
	rv.Status = s.authorize(r, attributesOf(u, rv.Spec.ResourceAttributes, rv.Spec.NonResourceAttributes))
	rv.TypeMeta.Kind, rv.TypeMeta.APIVersion = kind, "authorization.k8s.io/v1"
	return rv, nil
}

// attributesOf is what an access review asks, for the authorizer: a
// resource request matches every version when it names none, as in
// kube-apiserver.
func attributesOf(u *auth.User, ra *resourceAttributes, na *nonResourceAttributes) auth.Attributes {
	a := auth.Attributes{User: u}
	switch {
	case ra != nil:
		a.ResourceRequest = true
		a.Verb, a.APIGroup, a.APIVersion, a.Resource = ra.Verb, ra.Group, ra.Version, ra.Resource
		a.Subresource, a.Namespace, a.Name = ra.Subresource, ra.Namespace, ra.Name
		if a.APIVersion == "" {
			a.APIVersion = "*"
		}
	case na != nil:
		a.Verb, a.Path = na.Verb, na.Path
	}
	return a
}

// authorize answers an access review's status.
func (s *Handler) authorize(r *http.Request, a auth.Attributes) subjectAccessReviewStatus {
	d, reason, err := s.Authorizer.Authorize(r.Context(), a)
	st := subjectAccessReviewStatus{Allowed: d == auth.DecisionAllow, Denied: d == auth.DecisionDeny, Reason: reason}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return st
}
