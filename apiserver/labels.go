package apiserver

// boundLabels blanks the resource labels of a request whose group,
// version, resource or subresource the server does not serve. The labels
// come from the request's path, so a client could otherwise make any
// number of series (kube-apiserver's request metrics count routed
// requests only, and its terminations have this very problem).
func (s *server) boundLabels(l *RequestLabels) {
	if l.Resource == "" {
		return
	}
	if h := s.kinds.seal().lookup(l.Group, l.Version, l.Resource); h != nil && (l.Subresource == "" || h.Resource.HasSubresource(l.Subresource)) {
		return
	}
	l.Group, l.Version, l.Resource, l.Subresource = "", "", "", ""
}
