package apiserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
)

// reviewServer authenticates by token and authorizes alice to get pods,
// denies mallory with a reason and fails for broken, so that every answer
// of a review can be seen.
func reviewServer(t *testing.T, authenticate bool) http.Handler {
	t.Helper()
	tf, err := auth.ParseTokenFile(strings.NewReader("alice-token,alice,1,dev\n"))
	if err != nil {
		t.Fatal(err)
	}
	opts := apiserver.Options{
		APIAudiences: []string{"https://kapi.test"},
		Authorizer: auth.AuthorizerFunc(func(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
			switch {
			case a.User == nil:
				// A server without authentication.
				return auth.DecisionAllow, "", nil
			case a.User.Name == "mallory":
				return auth.DecisionDeny, "mallory is banned", nil
			case a.User.Name == "broken":
				return auth.DecisionNoOpinion, "", errors.New("no rules")
			case a.User.Name == "alice" && a.Verb == "get" && a.Resource == "pods" && a.APIVersion == "*":
				return auth.DecisionAllow, "alice reads pods", nil
			case a.User.Name == "alice" && a.Path == "/healthz":
				return auth.DecisionAllow, "", nil
			}
			return auth.DecisionNoOpinion, "", nil
		}),
	}
	if authenticate {
		opts.Authenticator = auth.AuthenticatorFunc(func(r *http.Request) (*auth.User, bool, error) {
			if r.Header.Get("Authorization") == "" {
				// The test's own requests come as an administrator.
				return &auth.User{Name: "admin", Groups: []string{auth.SystemPrivilegedGroup}}, true, nil
			}
			return auth.Chain{Authenticators: []auth.Authenticator{auth.BearerToken{Tokens: tf}}}.AuthenticateRequest(r)
		})
		opts.Authorizer = auth.Authorizers{auth.PrivilegedGroups{auth.SystemPrivilegedGroup}, opts.Authorizer}
	}
	srv := apiserver.New(opts)
	t.Cleanup(srv.Close)
	return srv
}

type reviewCase struct {
	name, method, path, body string
	code                     int
	// want is the answer's status, or the Status of an error.
	want string
}

func runReviewCases(t *testing.T, h http.Handler, cases []reviewCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			body, _ := io.ReadAll(rec.Body)
			if rec.Code != tc.code {
				t.Fatalf("code %d, want %d: %s", rec.Code, tc.code, body)
			}
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			if got["kind"] != "Status" {
				got = map[string]any{"kind": got["kind"], "metadata": got["metadata"], "status": got["status"]}
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatalf("want: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

const (
	tokenReviews  = "/apis/authentication.k8s.io/v1/tokenreviews"
	accessReviews = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	localReviews  = "/apis/authorization.k8s.io/v1/namespaces/ns1/localsubjectaccessreviews"
	notAllowed    = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}`
	notFound      = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`
)

func tokenReviewBody(spec string) string {
	return `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":` + spec + `}`
}

func TestTokenReview(t *testing.T) {
	h := reviewServer(t, true)
	alice := `{"username":"alice","uid":"1","groups":["dev","system:authenticated"]}`
	runReviewCases(t, h, []reviewCase{
		{"a known token, for the server's audiences", "POST", tokenReviews, tokenReviewBody(`{"token":"alice-token"}`), 201,
			`{"kind":"TokenReview","metadata":{},"status":{"authenticated":true,"user":` + alice + `,"audiences":["https://kapi.test"]}}`},
		{"audiences of which the server is one", "POST", tokenReviews, tokenReviewBody(`{"token":"alice-token","audiences":["other","https://kapi.test"]}`), 201,
			`{"kind":"TokenReview","metadata":{},"status":{"authenticated":true,"user":` + alice + `,"audiences":["https://kapi.test"]}}`},
		{"audiences the server is not", "POST", tokenReviews, tokenReviewBody(`{"token":"alice-token","audiences":["other"]}`), 201,
			`{"kind":"TokenReview","metadata":{},"status":{"user":{},"error":"invalid bearer token"}}`},
		{"an unknown token", "POST", tokenReviews, tokenReviewBody(`{"token":"nope"}`), 201,
			`{"kind":"TokenReview","metadata":{},"status":{"user":{},"error":"invalid bearer token"}}`},
		{"no token", "POST", tokenReviews, tokenReviewBody(`{}`), 400,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"token is required for TokenReview in authentication","reason":"BadRequest","code":400}`},
		{"list", "GET", tokenReviews, "", 405, notAllowed},
		{"delete", "DELETE", tokenReviews, "", 405, notAllowed},
		{"get", "GET", tokenReviews + "/x", "", 404, notFound},
		{"in a namespace", "POST", "/apis/authentication.k8s.io/v1/namespaces/ns1/tokenreviews", tokenReviewBody(`{"token":"alice-token"}`), 404, notFound},
	})
}

func TestTokenReviewWithoutAuthentication(t *testing.T) {
	runReviewCases(t, reviewServer(t, false), []reviewCase{
		{"no authenticator: unauthenticated, no error", "POST", tokenReviews, tokenReviewBody(`{"token":"alice-token"}`), 201,
			`{"kind":"TokenReview","metadata":{},"status":{"user":{}}}`},
	})
}

func sarBody(kind, meta, spec string) string {
	return `{"apiVersion":"authorization.k8s.io/v1","kind":"` + kind + `","metadata":` + meta + `,"spec":` + spec + `}`
}

// invalidReview is kube-apiserver's 422 for an access review: the group
// with an empty kind and name.
func invalidReview(msg string, causes ...string) string {
	return `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":".authorization.k8s.io \"\" is invalid: ` + msg +
		`","reason":"Invalid","details":{"group":"authorization.k8s.io","causes":[` + strings.Join(causes, ",") + `]},"code":422}`
}

func TestSubjectAccessReview(t *testing.T) {
	h := reviewServer(t, true)
	const pods = `"resourceAttributes":{"verb":"get","resource":"pods","namespace":"ns1"}`
	runReviewCases(t, h, []reviewCase{
		{"allowed", "POST", accessReviews, sarBody("SubjectAccessReview", `{}`, `{"user":"alice",`+pods+`}`), 201,
			`{"kind":"SubjectAccessReview","metadata":{},"status":{"allowed":true,"reason":"alice reads pods"}}`},
		{"no opinion", "POST", accessReviews, sarBody("SubjectAccessReview", `{}`, `{"groups":["g"],`+pods+`}`), 201,
			`{"kind":"SubjectAccessReview","metadata":{},"status":{"allowed":false}}`},
		{"denied", "POST", accessReviews, sarBody("SubjectAccessReview", `{}`, `{"user":"mallory",`+pods+`}`), 201,
			`{"kind":"SubjectAccessReview","metadata":{},"status":{"allowed":false,"denied":true,"reason":"mallory is banned"}}`},
		{"an evaluation error", "POST", accessReviews, sarBody("SubjectAccessReview", `{}`, `{"user":"broken",`+pods+`}`), 201,
			`{"kind":"SubjectAccessReview","metadata":{},"status":{"allowed":false,"evaluationError":"no rules"}}`},
		{"a path", "POST", accessReviews, sarBody("SubjectAccessReview", `{}`, `{"user":"alice","nonResourceAttributes":{"verb":"get","path":"/healthz"}}`), 201,
			`{"kind":"SubjectAccessReview","metadata":{},"status":{"allowed":true}}`},
		{"nothing asked, no one", "POST", accessReviews, sarBody("SubjectAccessReview", `{}`, `{}`), 422,
			invalidReview(`[spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: \"\": at least one of user or group must be specified]`,
				`{"reason":"FieldValueInvalid","message":"Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified","field":"spec"}`,
				`{"reason":"FieldValueInvalid","message":"Invalid value: \"\": at least one of user or group must be specified","field":"spec.user"}`)},
		{"a resource and a path", "POST", accessReviews, sarBody("SubjectAccessReview", `{}`, `{"user":"a","resourceAttributes":{"verb":"get"},"nonResourceAttributes":{"verb":"get"}}`), 422,
			invalidReview(`spec: Invalid value: {\"Path\":\"\",\"Verb\":\"get\"}: exactly one of nonResourceAttributes or resourceAttributes must be specified`,
				`{"reason":"FieldValueInvalid","message":"Invalid value: {\"Path\":\"\",\"Verb\":\"get\"}: exactly one of nonResourceAttributes or resourceAttributes must be specified","field":"spec"}`)},
		{"a uid is no one", "POST", accessReviews, sarBody("SubjectAccessReview", `{}`, `{"uid":"u",`+pods+`}`), 422,
			invalidReview(`spec.user: Invalid value: \"\": at least one of user or group must be specified`,
				`{"reason":"FieldValueInvalid","message":"Invalid value: \"\": at least one of user or group must be specified","field":"spec.user"}`)},
		{"a name", "POST", accessReviews, sarBody("SubjectAccessReview", `{"name":"foo"}`, `{"user":"a",`+pods+`}`), 422,
			invalidReview(`metadata: Invalid value: {\"name\":\"foo\"}: must be empty`,
				`{"reason":"FieldValueInvalid","message":"Invalid value: {\"name\":\"foo\"}: must be empty","field":"metadata"}`)},
		{"a selector with both forms", "POST", accessReviews, sarBody("SubjectAccessReview", `{}`, `{"user":"a","resourceAttributes":{"verb":"list","labelSelector":{"rawSelector":"a=b","requirements":[{"key":"a","operator":"In","values":["b"]}]}}}`), 422,
			invalidReview(`spec.resourceAttributes.labelSelector.rawSelector: Invalid value: \"a=b\": may not specified at the same time as requirements`,
				`{"reason":"FieldValueInvalid","message":"Invalid value: \"a=b\": may not specified at the same time as requirements","field":"spec.resourceAttributes.labelSelector.rawSelector"}`)},
		{"list", "GET", accessReviews, "", 405, notAllowed},
		{"in a namespace", "POST", "/apis/authorization.k8s.io/v1/namespaces/ns1/subjectaccessreviews", sarBody("SubjectAccessReview", `{}`, `{"user":"alice",`+pods+`}`), 404, notFound},
	})
}

func TestLocalSubjectAccessReview(t *testing.T) {
	h := reviewServer(t, true)
	const pods = `"resourceAttributes":{"verb":"get","resource":"pods","namespace":"ns1"}`
	runReviewCases(t, h, []reviewCase{
		{"allowed", "POST", localReviews, sarBody("LocalSubjectAccessReview", `{}`, `{"user":"alice",`+pods+`}`), 201,
			`{"kind":"LocalSubjectAccessReview","metadata":{"namespace":"ns1"},"status":{"allowed":true,"reason":"alice reads pods"}}`},
		{"the path's namespace in metadata", "POST", localReviews, sarBody("LocalSubjectAccessReview", `{"namespace":"ns1"}`, `{"user":"mallory",`+pods+`}`), 201,
			`{"kind":"LocalSubjectAccessReview","metadata":{"namespace":"ns1"},"status":{"allowed":false,"denied":true,"reason":"mallory is banned"}}`},
		{"another namespace in metadata", "POST", localReviews, sarBody("LocalSubjectAccessReview", `{"namespace":"ns2"}`, `{"user":"alice",`+pods+`}`), 400,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the namespace of the provided object does not match the namespace sent on the request","reason":"BadRequest","code":400}`},
		{"another namespace asked about", "POST", localReviews, sarBody("LocalSubjectAccessReview", `{}`, `{"user":"alice","resourceAttributes":{"verb":"get","namespace":"ns2"}}`), 422,
			invalidReview(`spec.resourceAttributes.namespace: Invalid value: \"ns2\": must match metadata.namespace`,
				`{"reason":"FieldValueInvalid","message":"Invalid value: \"ns2\": must match metadata.namespace","field":"spec.resourceAttributes.namespace"}`)},
		{"no namespace asked about", "POST", localReviews, sarBody("LocalSubjectAccessReview", `{}`, `{"user":"alice","resourceAttributes":{"verb":"get"}}`), 422,
			invalidReview(`spec.resourceAttributes.namespace: Invalid value: \"\": must match metadata.namespace`,
				`{"reason":"FieldValueInvalid","message":"Invalid value: \"\": must match metadata.namespace","field":"spec.resourceAttributes.namespace"}`)},
		{"a path", "POST", localReviews, sarBody("LocalSubjectAccessReview", `{}`, `{"user":"alice","nonResourceAttributes":{"verb":"get","path":"/x"}}`), 422,
			invalidReview(`spec.nonResourceAttributes: Invalid value: {\"Path\":\"/x\",\"Verb\":\"get\"}: disallowed on this kind of request`,
				`{"reason":"FieldValueInvalid","message":"Invalid value: {\"Path\":\"/x\",\"Verb\":\"get\"}: disallowed on this kind of request","field":"spec.nonResourceAttributes"}`)},
		{"a name", "POST", localReviews, sarBody("LocalSubjectAccessReview", `{"name":"x"}`, `{"user":"alice",`+pods+`}`), 422,
			invalidReview(`metadata: Invalid value: {\"name\":\"x\",\"namespace\":\"ns1\"}: must be empty except for namespace`,
				`{"reason":"FieldValueInvalid","message":"Invalid value: {\"name\":\"x\",\"namespace\":\"ns1\"}: must be empty except for namespace","field":"metadata"}`)},
		{"list", "GET", localReviews, "", 405, notAllowed},
		{"every namespace", "POST", "/apis/authorization.k8s.io/v1/localsubjectaccessreviews", sarBody("LocalSubjectAccessReview", `{}`, `{"user":"alice",`+pods+`}`), 404, notFound},
	})
}

// TestReviewsDiscovery checks the reviews' discovery documents against
// kube-apiserver's.
func TestReviewsDiscovery(t *testing.T) {
	h := reviewServer(t, false)
	for path, want := range map[string]string{
		"/apis/authentication.k8s.io/v1": `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"authentication.k8s.io/v1","resources":[` +
			`{"name":"selfsubjectreviews","singularName":"selfsubjectreview","namespaced":false,"kind":"SelfSubjectReview","verbs":["create"]},` +
			`{"name":"tokenreviews","singularName":"tokenreview","namespaced":false,"kind":"TokenReview","verbs":["create"]}]}`,
		"/apis/authorization.k8s.io/v1": `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"authorization.k8s.io/v1","resources":[` +
			`{"name":"localsubjectaccessreviews","singularName":"localsubjectaccessreview","namespaced":true,"kind":"LocalSubjectAccessReview","verbs":["create"]},` +
			`{"name":"selfsubjectaccessreviews","singularName":"selfsubjectaccessreview","namespaced":false,"kind":"SelfSubjectAccessReview","verbs":["create"]},` +
			`{"name":"selfsubjectrulesreviews","singularName":"selfsubjectrulesreview","namespaced":false,"kind":"SelfSubjectRulesReview","verbs":["create"]},` +
			`{"name":"subjectaccessreviews","singularName":"subjectaccessreview","namespaced":false,"kind":"SubjectAccessReview","verbs":["create"]}]}`,
		"/apis/authentication.k8s.io": `{"kind":"APIGroup","apiVersion":"v1","name":"authentication.k8s.io","versions":[{"groupVersion":"authentication.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"authentication.k8s.io/v1","version":"v1"}}`,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		var got, w any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v: %s", path, err, rec.Body)
		}
		_ = json.Unmarshal([]byte(want), &w)
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/apis", nil)
	req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	h.ServeHTTP(rec, req)
	const want = `{"resource":"tokenreviews","responseKind":{"group":"","version":"","kind":"TokenReview"},"scope":"Cluster","singularResource":"tokenreview","verbs":["create"]}`
	if !strings.Contains(rec.Body.String(), want) {
		t.Errorf("aggregated discovery lacks %s: %s", want, rec.Body)
	}
}
