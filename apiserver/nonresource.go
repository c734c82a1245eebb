package apiserver

import (
	"net/http"

	"github.com/kapi-dev/kapi/apiserver/requestinfo"
)

// NonResourceHandler serves h behind the server's authentication,
// impersonation, audit and authorization, as kube-apiserver serves
// /metrics and /debug/pprof: a non-resource request whose verb is the
// lower-cased method and whose path the authorizer sees (RBAC's
// nonResourceURLs). Without an Authorizer everyone may reach h.
func (s *Server) NonResourceHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		var path requestinfo.Path
		path.Parse(r)
		out, authed, done := s.guard(rec, r, &path)
		panicked := true
		defer func() { done(panicked) }()
		if authed != nil {
			h.ServeHTTP(out, authed)
		}
		panicked = false
	})
}
