package apiserver

// Patterns is [Server.Patterns].
func (s *server) Patterns() []string {
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
