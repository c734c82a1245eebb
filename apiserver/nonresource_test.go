package apiserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
)

// TestNonResourceHandler: a host's handler mounted through the server is
// authorized as a non-resource path.
func TestNonResourceHandler(t *testing.T) {
	var seen auth.Attributes
	authz := auth.AuthorizerFunc(func(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
		seen = a
		if a.User != nil && a.User.Name == "admin" {
			return auth.DecisionAllow, "", nil
		}
		return auth.DecisionDeny, "no", nil
	})
	srv := apiserver.New(apiserver.Options{Authorizer: authz})
	defer srv.Close()
	h := srv.NonResourceHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secret")) }))
	ts := httptest.NewServer(withTestUser(h))
	defer ts.Close()
	for user, want := range map[string]int{"admin": 200, "bob": 403} {
		req, _ := http.NewRequest("GET", ts.URL+"/debug/pprof/heap", nil)
		req.Header.Set("X-Test-User", user)
		if r := sendReq(t, req); r.code != want {
			t.Errorf("%s: %d %s, want %d", user, r.code, r.body, want)
		}
	}
	if seen.ResourceRequest || seen.Path != "/debug/pprof/heap" || seen.Verb != "get" {
		t.Errorf("authorized as %+v", seen)
	}
}
