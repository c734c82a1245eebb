package health_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/kapi-dev/kapi/apiserver/health"
)

// A host serving its own mux mounts the same endpoints kube-apiserver
// serves, from its own checks.
func ExampleHandler() {
	db := health.Check{Name: "db", Check: func(*http.Request) error { return errors.New("down") }}
	shutdown := health.NewShutdown()
	h := health.NewHandler(
		[]health.Check{health.Ping()},
		[]health.Check{health.Ping(), db, shutdown.Check()},
		[]health.Check{health.Ping(), db},
	)
	for _, path := range []string{"/livez", "/readyz?verbose", "/readyz/db"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		body, _ := io.ReadAll(w.Result().Body)
		fmt.Printf("%s %d\n%s\n", path, w.Code, body)
	}
	// Output:
	// /livez 200
	// ok
	// /readyz?verbose 500
	// [+]ping ok
	// [-]db failed: reason withheld
	// [+]shutdown ok
	// readyz check failed
	//
	// /readyz/db 500
	// internal server error: down
}
