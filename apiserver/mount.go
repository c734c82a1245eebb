package apiserver

// Patterns returns the paths the server answers, as [http.ServeMux]
// patterns, for a host that mounts it next to its own handlers rather than
// at "/":
//
//	for _, p := range srv.Patterns() {
//		mux.Handle(p, srv)
//	}
//
// The list does not depend on the kinds registered. Handlers a host
// mounts itself, such as [Server.NonResourceHandler]'s, are not in it.
//
// To serve the API under a path prefix, strip the prefix before the
// server sees the path and give clients the prefixed URL (a kubeconfig
// whose server is https://host/kapi):
//
//	mux.Handle("/kapi/", http.StripPrefix("/kapi", srv))
//
// Clients add their URL's path to every path they send, including those
// the server names in its responses (the OpenAPI v3 index's
// serverRelativeURLs), so those stay relative to the server's own root.
//
// The patterns are discovery and every resource below /api and /apis (the
// access and subject reviews too), the OpenAPI v3 documents, /version and
// the health endpoints with their single checks.
func (s *Server) Patterns() []string {
	return []string{
		"/api", "/api/",
		"/apis", "/apis/",
		"/openapi/v3", "/openapi/v3/",
		"/version",
		"/healthz", "/healthz/",
		"/livez", "/livez/",
		"/readyz", "/readyz/",
	}
}
