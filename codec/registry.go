package codec

import (
	"strings"

	"github.com/kapi-dev/kapi/status"
)

// Registry is the set of serializers one server offers. It is built once
// and read-only afterwards, so it is safe for concurrent use.
type Registry struct {
	ordered []Serializer
	byType  map[string]Serializer
}

// NewRegistry returns a registry of the given serializers; the first is the
// default for wildcards and missing Accept headers. A later serializer with
// the same media type replaces an earlier one.
func NewRegistry(serializers ...Serializer) *Registry {
	r := &Registry{byType: make(map[string]Serializer, len(serializers))}
	for _, s := range serializers {
		if _, dup := r.byType[s.MediaType()]; !dup {
			r.ordered = append(r.ordered, s)
		} else {
			for i, o := range r.ordered {
				if o.MediaType() == s.MediaType() {
					r.ordered[i] = s
				}
			}
		}
		r.byType[s.MediaType()] = s
	}
	return r
}

// MediaTypes lists the registered media types, default first.
func (r *Registry) MediaTypes() []string {
	out := make([]string, len(r.ordered))
	for i, s := range r.ordered {
		out[i] = s.MediaType()
	}
	return out
}

// Lookup returns the serializer of a media type.
func (r *Registry) Lookup(mediaType string) (Serializer, bool) {
	s, ok := r.byType[mediaType]
	return s, ok
}

// Negotiate picks the serializer for a response from an Accept header. An
// empty header means the default serializer. accept, when not nil, vets
// each candidate with its parameters (as=Table, stream=watch, …) and the
// serializer it would use; candidates it refuses are skipped. When nothing
// fits the answer is a 406 NotAcceptable Status.
func (r *Registry) Negotiate(header string, accept func(MediaType, Serializer) bool) (Serializer, MediaType, error) {
	if s, mt, ok := r.negotiateBare(header, accept); ok {
		return s, mt, nil
	}
	return r.negotiateParsed(header, accept)
}

// negotiateParsed is Negotiate for any Accept header.
func (r *Registry) negotiateParsed(header string, accept func(MediaType, Serializer) bool) (Serializer, MediaType, error) {
	entries := ParseAccept(header)
	if len(entries) == 0 {
		def := r.ordered[0]
		mt := MediaType{Type: def.MediaType()}
		if accept == nil || accept(mt, def) {
			return def, mt, nil
		}
	}
	for _, e := range entries {
		if e.Q == 0 {
			continue
		}
		candidates := r.ordered
		if e.Type != "*/*" && e.Type != "application/*" {
			s, ok := r.byType[e.Type]
			if !ok {
				continue
			}
			candidates = []Serializer{s}
		}
		for _, s := range candidates {
			mt := MediaType{Type: s.MediaType(), Params: e.Params}
			if accept == nil || accept(mt, s) {
				return s, mt, nil
			}
		}
	}
	return nil, MediaType{}, status.NotAcceptable(r.MediaTypes())
}

// negotiateBare is Negotiate for the Accept header most clients send: one
// media type of the registry, without parameters. It parses nothing and
// allocates nothing; ok is false when the header is not of that form, or
// accept refuses the type.
func (r *Registry) negotiateBare(header string, accept func(MediaType, Serializer) bool) (Serializer, MediaType, bool) {
	if strings.IndexAny(header, ",; \t") >= 0 {
		return nil, MediaType{}, false
	}
	s, ok := r.byType[header]
	if !ok {
		return nil, MediaType{}, false
	}
	mt := MediaType{Type: s.MediaType()}
	if accept != nil && !accept(mt, s) {
		return nil, MediaType{}, false
	}
	return s, mt, true
}

// ForContentType returns the serializer that decodes a request body. An
// empty Content-Type is read as JSON, as kube-apiserver does; an unknown or
// malformed one is a 415 UnsupportedMediaType Status.
func (r *Registry) ForContentType(contentType string) (Serializer, MediaType, error) {
	if contentType == "" {
		contentType = MediaTypeJSON
	}
	mt, err := ParseMediaType(contentType)
	if err != nil {
		return nil, MediaType{}, status.UnsupportedMediaType(contentType, r.MediaTypes())
	}
	s, ok := r.byType[mt.Type]
	if !ok {
		return nil, MediaType{}, status.UnsupportedMediaType(contentType, r.MediaTypes())
	}
	return s, mt, nil
}
