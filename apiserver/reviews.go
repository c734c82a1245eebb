package apiserver

import (
	"bytes"
	"net/http"
	"reflect"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// The review resources a user asks about themselves with: kubectl auth
// can-i (SelfSubjectAccessReview), kubectl auth can-i --list
// (SelfSubjectRulesReview) and kubectl auth whoami (SelfSubjectReview).
// They are created and answered, never stored.
const (
	accessReviewPath = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	rulesReviewPath  = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
	selfReviewPath   = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
)

// serveReview answers a review request, reporting whether the request was
// one.
func (s *Server) serveReview(w http.ResponseWriter, r *http.Request) bool {
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
		s.writeError(w, r, status.MethodNotAllowed(meta.GroupResource{}, actionFor(r.Method, false)))
		return true
	}
	if err := s.decodeReview(r, obj); err != nil {
		s.writeError(w, r, err)
		return true
	}
	auditObject(r.Context(), obj.GetObjectMeta())
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
	s.writeReview(w, r, answer)
	return true
}

// decodeReview reads a review body of the media type it declares.
func (s *Server) decodeReview(r *http.Request, obj meta.Object) error {
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return status.BadRequest("the body of the request was empty")
	}
	ser, _, err := s.codecs.ForContentType(r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	if _, err := ser.Decode(body, obj); err != nil {
		return status.BadRequest(decodeErrorMessage(err))
	}
	return nil
}

// writeReview writes the answered review with 201 Created.
func (s *Server) writeReview(w http.ResponseWriter, r *http.Request, obj meta.Object) {
	ser, _, err := responsewriters.Negotiate(s.codecs, r.Header.Get("Accept"), reflect.TypeOf(obj))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.bodies.WriteEncoded(w, r, http.StatusCreated, ser, ser.MediaType(), obj); err != nil {
		s.writeError(w, r, status.InternalError(err))
	}
}

// accessReview answers whether the user may do what the review asks.
func (s *Server) accessReview(r *http.Request, u *auth.User, rv *selfSubjectAccessReview) meta.Object {
	a := auth.Attributes{User: u}
	switch ra, na := rv.Spec.ResourceAttributes, rv.Spec.NonResourceAttributes; {
	case ra != nil:
		a.ResourceRequest = true
		a.Verb, a.APIGroup, a.APIVersion, a.Resource = ra.Verb, ra.Group, ra.Version, ra.Resource
		a.Subresource, a.Namespace, a.Name = ra.Subresource, ra.Namespace, ra.Name
	case na != nil:
		a.Verb, a.Path = na.Verb, na.Path
	}
	d, reason, err := s.authorizer().Authorize(r.Context(), a)
	rv.Status = subjectAccessReviewStatus{Allowed: d == auth.DecisionAllow, Denied: d == auth.DecisionDeny, Reason: reason}
	if err != nil {
		rv.Status.EvaluationError = err.Error()
	}
	rv.TypeMeta = meta.TypeMeta{Kind: "SelfSubjectAccessReview", APIVersion: "authorization.k8s.io/v1"}
	return rv
}

// rulesReview lists what the user may do in the review's namespace.
func (s *Server) rulesReview(r *http.Request, u *auth.User, rv *selfSubjectRulesReview) meta.Object {
	rv.TypeMeta = meta.TypeMeta{Kind: "SelfSubjectRulesReview", APIVersion: "authorization.k8s.io/v1"}
	rr, ok := s.authorizer().(auth.RuleResolver)
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
