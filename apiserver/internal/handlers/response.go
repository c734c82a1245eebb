package handlers

import (
	"net/http"
	"reflect"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// negotiate picks the response serializer for v, an object, list or
// Status: the first acceptable media type whose serializer can encode v's
// type.
// A list's items are checked with the resource's kind.
func (h *Handler) negotiate(req *Request, v any) (codec.Serializer, codec.MediaType, error) {
	types := []reflect.Type{reflect.TypeOf(v)}
	if _, isList := v.(*meta.List); isList {
		types = append(types, reflect.TypeOf(h.Resource.NewObject()))
	}
	return responsewriters.Negotiate(h.Codecs, req.Request.Header.Get("Accept"), types...)
}

// writeObject encodes one object (or list, or Status) in the negotiated
// media type.
func (h *Handler) writeObject(req *Request, code int, obj any) {
	ser, _, err := h.negotiate(req, obj)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeEncoded(req, code, ser, ser.MediaType(), obj)
}

// writeEncoded encodes v with ser and writes it.
func (h *Handler) writeEncoded(req *Request, code int, ser codec.Serializer, contentType string, v any) {
	_, end := h.StartSpan(req.Request.Context(), "encode")
	defer end(nil)
	if err := h.bodies.WriteEncoded(req.Writer, req.Request, code, ser, contentType, v); err != nil {
		h.fail(req, status.InternalError(err))
	}
}

var statusType = reflect.TypeOf(&meta.Status{})

// WriteError is the one sink for failures: it writes err as a Status in a
// media type the client accepts (JSON when it accepts none we know), with
// Retry-After when the Status asks for it.
func (s *Core) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	s.writeErrorFor(w, r, nil, err)
}

// fail is writeError for a request on a resource: the Status goes out in
// a media type the kind itself can be served in, as kube-apiserver answers
// errors of a custom resource in the serializers of custom resources.
func (h *Handler) fail(req *Request, err error) {
	h.writeErrorFor(req.Writer, req.Request, h.Resource, err)
}

func (s *Core) writeErrorFor(w http.ResponseWriter, r *http.Request, res *registry.Resource, err error) {
	types := []reflect.Type{statusType}
	if res != nil {
		types = append(types, reflect.TypeOf(res.Kind.New()))
	}
	responsewriters.WriteStatus(w, r, s.Codecs, types, err)
}

// successStatus is the Status a delete answers with when the object is
// gone.
func successStatus(r *registry.Resource, obj meta.Object) *meta.Status {
	m := obj.GetObjectMeta()
	return &meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   meta.StatusSuccess,
		Details:  &meta.StatusDetails{Name: m.Name, Group: r.Kind.Group, Kind: r.Kind.Resource, UID: m.UID},
	}
}
