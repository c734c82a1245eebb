package apiserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
)

// TestHostUserKept: with no authenticator, a user the host's middleware
// put on the context reaches authorization and admission.
func TestHostUserKept(t *testing.T) {
	var seen []string
	s := apiserver.New(apiserver.Options{
		Authorizer: auth.AuthorizerFunc(func(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
			if a.User == nil {
				return auth.DecisionNoOpinion, "", nil
			}
			seen = append(seen, a.User.Name)
			return auth.DecisionAllow, "", nil
		}),
		ValidatingAdmission: []apiserver.AdmissionFunc{func(_ context.Context, r *apiserver.AdmissionRequest) error {
			seen = append(seen, "admission:"+r.User.Name)
			return nil
		}},
	})
	defer s.Close()
	s.Register(widgetKind())
	host := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.Header.Get("X-Host-User"); u != "" {
			r = r.WithContext(auth.WithUser(r.Context(), &auth.User{Name: u}))
		}
		s.ServeHTTP(w, r)
	})
	do := func(user string) int {
		req := httptest.NewRequest("POST", "/apis/stable.example.com/v1/namespaces/ns1/widgets", strings.NewReader(`{"metadata":{"name":"w-`+user+`"}}`))
		req.Header.Set("Content-Type", "application/json")
		if user != "" {
			req.Header.Set("X-Host-User", user)
		}
		rec := httptest.NewRecorder()
		host.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := do("hostuser"); code != http.StatusCreated {
		t.Fatalf("with a host user: %d", code)
	}
	if code := do(""); code != http.StatusForbidden {
		t.Fatalf("without a user: %d", code)
	}
	if len(seen) != 2 || seen[0] != "hostuser" || seen[1] != "admission:hostuser" {
		t.Errorf("seen %v", seen)
	}
}
