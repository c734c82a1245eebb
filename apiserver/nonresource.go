package apiserver

import "net/http"

// NonResourceHandler serves h behind the server's authentication,
// impersonation, audit and authorization, as kube-apiserver serves
// /metrics and /debug/pprof: a non-resource request whose verb is the
// lower-cased method and whose path the authorizer sees (RBAC's
// nonResourceURLs). Without an Authorizer everyone may reach h.
func (s *Server) NonResourceHandler(h http.Handler) http.Handler {
	return s.guard.Handler(h)
}
