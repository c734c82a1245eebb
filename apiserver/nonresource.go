package apiserver

import "net/http"

// NonResourceHandler is [Server.NonResourceHandler].
func (s *server) NonResourceHandler(h http.Handler) http.Handler {
	return s.Guard.Handler(h)
}
