// Package reviews answers the review requests: those a user makes about
// themselves, which are created and answered, never stored: kubectl auth
// can-i (authorization.k8s.io/v1 SelfSubjectAccessReview), kubectl auth
// can-i --list (SelfSubjectRulesReview) and kubectl auth whoami
// (authentication.k8s.io/v1 SelfSubjectReview); and those another
// server asks about someone else, as an aggregated server delegates its
// authentication and authorization: TokenReview, SubjectAccessReview and
// LocalSubjectAccessReview.
//
// In the request path they come after the filters (the user is known and
// the request authorized) and before the router: package apiserver asks
// [Handler.Serve] first and routes what it declines.
package reviews
