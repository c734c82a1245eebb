package rbac_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDelegatedReviewsRBAC checks who may create the reviews a delegating
// server sends: system:auth-delegator for TokenReviews and
// SubjectAccessReviews, a namespace's admins for its
// LocalSubjectAccessReviews, as kube-apiserver's bootstrap policy has it.
func TestDelegatedReviewsRBAC(t *testing.T) {
	s := newTestServer(t, false)
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
		`{"metadata":{"name":"bob-delegator"},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"bob"}],"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:auth-delegator"}}`, http.StatusCreated)
	s.expect("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings",
		`{"metadata":{"name":"alice-admin"},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"alice"}],"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"admin"}}`, http.StatusCreated)
	const (
		tokenReview = `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"alice-token"}}`
		sar         = `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"alice","resourceAttributes":{"verb":"get","resource":"things","group":"example.com"}}}`
	)
	lsarIn := func(ns string) (string, string) {
		return "/apis/authorization.k8s.io/v1/namespaces/" + ns + "/localsubjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"namespace":"` + ns + `","verb":"get"}}}`
	}
	lsarNS1, lsarNS1Body := lsarIn("ns1")
	lsarNS2, lsarNS2Body := lsarIn("ns2")
	for _, tc := range []struct {
		name, token, path, body string
		want                    int
	}{
		{"the delegator reviews tokens", "bob-token", "/apis/authentication.k8s.io/v1/tokenreviews", tokenReview, http.StatusCreated},
		{"the delegator reviews access", "bob-token", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar, http.StatusCreated},
		{"the delegator may not review access in a namespace", "bob-token", lsarNS1, lsarNS1Body, http.StatusForbidden},
		{"others may not review tokens", "alice-token", "/apis/authentication.k8s.io/v1/tokenreviews", tokenReview, http.StatusForbidden},
		{"others may not review access", "alice-token", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar, http.StatusForbidden},
		{"an admin reviews access in their namespace", "alice-token", lsarNS1, lsarNS1Body, http.StatusCreated},
		{"an admin may not review access in another", "alice-token", lsarNS2, lsarNS2Body, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := s.do(tc.token, "POST", tc.path, tc.body)
			if diff := cmp.Diff(tc.want, code); diff != "" {
				t.Errorf("code (-want +got):\n%s\n%s", diff, out)
			}
		})
	}
}
