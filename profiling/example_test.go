package profiling_test

import (
	"net/http"

	"github.com/kapi-dev/kapi/profiling"
)

// Mount the profiles behind the host's own check of who may read them.
func ExampleHandler() {
	allowed := func(r *http.Request) bool { return r.Header.Get("X-Admin") == "yes" } // the host's authorization
	pprof := profiling.Handler()
	mux := http.NewServeMux()
	mux.Handle("/debug/pprof/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed(r) {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		pprof.ServeHTTP(w, r)
	}))
	_ = mux
	// Output:
}
