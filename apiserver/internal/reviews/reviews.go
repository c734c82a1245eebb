package reviews

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// The paths of the reviews.
const (
	accessReviewPath  = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	rulesReviewPath   = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
	selfReviewPath    = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	tokenReviewPath   = "/apis/authentication.k8s.io/v1/tokenreviews"
	subjectReviewPath = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	// A LocalSubjectAccessReview is created in a namespace:
	// localReviewPrefix + namespace + localReviewSuffix.
	localReviewPrefix = "/apis/authorization.k8s.io/v1/namespaces/"
	localReviewSuffix = "/localsubjectaccessreviews"
)

// Handler answers the review requests.
type Handler struct {
	// Authenticator answers TokenReviews; nil (a server without
	// authentication) answers every TokenReview unauthenticated.
	Authenticator auth.Authenticator
	// APIAudiences are the audiences the server's tokens are for, which
	// a TokenReview naming none is asked about (kube-apiserver's
	// --api-audiences).
	APIAudiences []string
	// Authorizer answers access reviews; it is never nil (an
	// auth.AlwaysAllow when the server has none).
	Authorizer auth.Authorizer
	// Decode reads a review from the request's body.
	Decode func(r *http.Request, obj meta.Object) error
	// Write answers the request with the review, 201 Created.
	Write func(w http.ResponseWriter, r *http.Request, obj meta.Object)
	// WriteError answers the request with a Status.
	WriteError filters.ErrorWriter
}

// reviewFor returns an empty review of the kind the path creates, and
// the namespace of a LocalSubjectAccessReview's path; nil when the path
// is no review's.
func reviewFor(path string) (meta.Object, string) {
	switch path {
	case accessReviewPath:
		return &selfSubjectAccessReview{}, ""
	case rulesReviewPath:
		return &selfSubjectRulesReview{}, ""
	case selfReviewPath:
		return &selfSubjectReview{}, ""
	case tokenReviewPath:
		return &tokenReview{}, ""
	case subjectReviewPath:
		return &subjectAccessReview{}, ""
	}
	ns, ok := strings.CutPrefix(path, localReviewPrefix)
	if !ok {
		return nil, ""
	}
	ns, ok = strings.CutSuffix(ns, localReviewSuffix)
	if !ok || ns == "" || strings.Contains(ns, "/") {
		return nil, ""
	}
	return &subjectAccessReview{}, ns
}

// Serve answers a review request, reporting whether the request was
// one.
func (s *Handler) Serve(w http.ResponseWriter, r *http.Request) bool {
	obj, namespace := reviewFor(strings.TrimSuffix(r.URL.Path, "/"))
	if obj == nil {
		return false
	}
	if r.Method != http.MethodPost {
		// The reviews are create-only: kube-apiserver serves no other
		// verb at their paths.
		s.WriteError(w, r, status.MethodNotAllowedPath())
		return true
	}
	if err := s.Decode(r, obj); err != nil {
		s.WriteError(w, r, err)
		return true
	}
	filters.AuditObject(r.Context(), obj.GetObjectMeta())
	answer, err := s.answer(r, obj, namespace)
	if err != nil {
		s.WriteError(w, r, err)
		return true
	}
	s.Write(w, r, answer)
	return true
}

// answer fills in the status of a decoded review.
func (s *Handler) answer(r *http.Request, obj meta.Object, namespace string) (meta.Object, error) {
	u, _ := auth.UserFrom(r.Context())
	switch o := obj.(type) {
	case *selfSubjectAccessReview:
		return s.accessReview(r, u, o)
	case *selfSubjectRulesReview:
		return s.rulesReview(r, u, o), nil
	case *selfSubjectReview:
		o.TypeMeta = meta.TypeMeta{Kind: "SelfSubjectReview", APIVersion: "authentication.k8s.io/v1"}
		o.Status.UserInfo = userInfoOf(u)
		return o, nil
	case *tokenReview:
		return s.tokenReview(r, o)
	case *subjectAccessReview:
		return s.subjectAccessReview(r, o, namespace)
	}
	return nil, status.InternalError(fmt.Errorf("reviews: no answer for %T", obj))
}

// accessReview answers whether the user may do what the review asks.
func (s *Handler) accessReview(r *http.Request, u *auth.User, rv *selfSubjectAccessReview) (meta.Object, error) {
	if errs := validateSelfAccessReview(rv); len(errs) > 0 {
		return nil, status.Invalid(reviewGroupKind, "", errs)
	}
	rv.Status = s.authorize(r, attributesOf(u, rv.Spec.ResourceAttributes, rv.Spec.NonResourceAttributes))
	rv.TypeMeta = meta.TypeMeta{Kind: "SelfSubjectAccessReview", APIVersion: "authorization.k8s.io/v1"}
	return rv, nil
}

// rulesReview lists what the user may do in the review's namespace.
func (s *Handler) rulesReview(r *http.Request, u *auth.User, rv *selfSubjectRulesReview) meta.Object {
	rv.TypeMeta = meta.TypeMeta{Kind: "SelfSubjectRulesReview", APIVersion: "authorization.k8s.io/v1"}
	rr, ok := s.Authorizer.(auth.RuleResolver)
	if !ok {
		rv.Status.Incomplete = true
		rv.Status.ResourceRules, rv.Status.NonResourceRules = []resourceRule{}, []nonResourceRule{}
		return rv
	}
	rules, err := rr.RulesFor(r.Context(), u, rv.Spec.Namespace)
	rv.Status.Incomplete = rules.Incomplete
	if err != nil {
		rv.Status.EvaluationError = err.Error()
	}
	rv.Status.ResourceRules = make([]resourceRule, 0, len(rules.Resource))
	for _, rule := range rules.Resource {
		rv.Status.ResourceRules = append(rv.Status.ResourceRules, resourceRule(rule))
	}
	rv.Status.NonResourceRules = make([]nonResourceRule, 0, len(rules.NonResource))
	for _, rule := range rules.NonResource {
		rv.Status.NonResourceRules = append(rv.Status.NonResourceRules, nonResourceRule(rule))
	}
	return rv
}

func userInfoOf(u *auth.User) userInfo {
	if u == nil {
		return userInfo{}
	}
	info := userInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	if len(u.Extra) > 0 {
		info.Extra = make(map[string]extraValue, len(u.Extra))
		for k, v := range u.Extra {
			info.Extra[k] = v
		}
	}
	return info
}
