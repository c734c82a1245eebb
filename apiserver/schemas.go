package apiserver

import "github.com/kapi-dev/kapi/schema"

// Schema returns the schema of a served resource in one version, false
// when the server does not serve it. Admission plugins read it to merge
// what they change into an object as server-side apply would (kube's
// MutatingAdmissionPolicy does so with the kind's OpenAPI schema).
func (s *Server) Schema(group, version, resource string) (*schema.Schema, bool) {
	return s.s.kinds.schema(group, version, resource)
}

func (s *catalog) schema(group, version, resource string) (*schema.Schema, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h := s.lookup(group, version, resource)
	if h == nil {
		return nil, false
	}
	return h.Resource.Kind.Schema, true
}
