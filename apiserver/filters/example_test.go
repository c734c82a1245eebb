package filters_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/status"
)

// A host's own endpoint behind the guard: the authorizer sees a
// non-resource request, and a refusal is a 403 Status.
func ExampleGuard_Handler() {
	g := &filters.Guard{
		Authorizer: auth.AuthorizerFunc(func(context.Context, auth.Attributes) (auth.Decision, string, error) {
			return auth.DecisionDeny, "closed", nil
		}),
		WriteError: func(w http.ResponseWriter, _ *http.Request, err error) {
			st := status.FromError(err)
			w.WriteHeader(int(st.Code))
			fmt.Fprint(w, st.Message)
		},
	}
	h := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "metrics") }))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	fmt.Println(w.Code, w.Body.String())
	// Output: 403 forbidden: User "" cannot get path "/metrics": closed
}
