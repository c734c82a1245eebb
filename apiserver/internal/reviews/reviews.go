package reviews

import (
	"net/http"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// The paths of the reviews.
const (
	accessReviewPath = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	rulesReviewPath  = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
	selfReviewPath   = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
)

// Handler answers the review requests.
type Handler struct {
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

// Serve answers a review request, reporting whether the request was
// one.
func (s *Handler) Serve(w http.ResponseWriter, r *http.Request) bool {
	path := strings.TrimSuffix(r.URL.Path, "/")
	var obj, answer meta.Object
	switch path {
	case accessReviewPath:
		obj = &selfSubjectAccessReview{}
	case rulesReviewPath:
		obj = &selfSubjectRulesReview{}
	case selfReviewPath:
		obj = &selfSubjectReview{}
	default:
		return false
	}
	if r.Method != http.MethodPost {
		s.WriteError(w, r, status.MethodNotAllowed(meta.GroupResource{}, requestinfo.Action(r.Method, false)))
		return true
	}
	if err := s.Decode(r, obj); err != nil {
		s.WriteError(w, r, err)
		return true
	}
	filters.AuditObject(r.Context(), obj.GetObjectMeta())
	u, _ := auth.UserFrom(r.Context())
	switch o := obj.(type) {
	case *selfSubjectAccessReview:
		answer = s.accessReview(r, u, o)
	case *selfSubjectRulesReview:
		answer = s.rulesReview(r, u, o)
	case *selfSubjectReview:
		o.TypeMeta = meta.TypeMeta{Kind: "SelfSubjectReview", APIVersion: "authentication.k8s.io/v1"}
		o.Status.UserInfo = userInfoOf(u)
		answer = o
	}
	s.Write(w, r, answer)
	return true
}

// accessReview answers whether the user may do what the review asks.
func (s *Handler) accessReview(r *http.Request, u *auth.User, rv *selfSubjectAccessReview) meta.Object {
	a := auth.Attributes{User: u}
	switch ra, na := rv.Spec.ResourceAttributes, rv.Spec.NonResourceAttributes; {
	case ra != nil:
		a.ResourceRequest = true
		a.Verb, a.APIGroup, a.APIVersion, a.Resource = ra.Verb, ra.Group, ra.Version, ra.Resource
		a.Subresource, a.Namespace, a.Name = ra.Subresource, ra.Namespace, ra.Name
	case na != nil:
		a.Verb, a.Path = na.Verb, na.Path
	}
	d, reason, err := s.Authorizer.Authorize(r.Context(), a)
	rv.Status = subjectAccessReviewStatus{Allowed: d == auth.DecisionAllow, Denied: d == auth.DecisionDeny, Reason: reason}
	if err != nil {
		rv.Status.EvaluationError = err.Error()
	}
	rv.TypeMeta = meta.TypeMeta{Kind: "SelfSubjectAccessReview", APIVersion: "authorization.k8s.io/v1"}
	return rv
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
