package handlers

import (
	"encoding/json"
	"reflect"

	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/codec/cbor"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// checkRequired answers 422 Invalid when the body a typed object was
// decoded from left out a required field (a Go field that is neither a
// pointer, a slice nor a map, without omitempty: see package schema), as
// kube-apiserver does for a custom resource's required properties. The Go
// value cannot tell a field sent as its zero value from one left out, so
// only an object with a required field at its zero value has its body
// looked at; body returns it as decoded JSON, or nil when its encoding
// cannot tell (protobuf writes every scalar field). Unstructured objects
// are checked with the rest of their schema.
func (h *Handler) checkRequired(req *Request, obj meta.Object, body func() (any, error)) error {
	p := h.Resource.Plan
	if p == nil || p.Unstructured || !p.Required.MayMiss(reflect.ValueOf(obj)) {
		return nil
	}
	x, err := body()
	if err != nil {
		return status.BadRequest(decodeErrorMessage(err))
	}
	top, ok := x.(map[string]any)
	if !ok {
		return nil
	}
	// Only the part of the object the write keeps is checked: a write to
	// /status keeps only the status, and a write to the object of a kind
	// with a status subresource keeps everything else.
	var errs status.FieldErrors
	switch {
	case req.Subresource == "status":
		// Only the status subtree: the object's own required fields
		// (spec) are the stored object's.
		st := p.Root.Properties["status"]
		if top["status"] == nil || st == nil {
			return nil
		}
		errs = st.MissingRequired(status.NewPath("status"), top["status"])
	case h.Resource.Kind.Subresources.Status:
		delete(top, "status")
		errs = p.Root.MissingRequired(status.Path{}, top)
	default:
		errs = p.Root.MissingRequired(status.Path{}, top)
	}
	if len(errs) == 0 {
		return nil
	}
	m := obj.GetObjectMeta()
	name := m.Name
	if name == "" {
		name = m.GenerateName
	}
	return status.Invalid(h.Resource.InvalidKind(), name, errs)
}

// BodyJSON returns a request body of the given media type as decoded
// JSON, for checkRequired and defaultSent.
func BodyJSON(mediaType string, body []byte) func() (any, error) {
	return func() (any, error) {
		var err error
		switch mediaType {
		case codec.MediaTypeJSON:
		case codec.MediaTypeYAML:
			body, err = yaml.YAMLToJSON(body)
		case cbor.MediaType:
			body, err = cbor.ToJSON(body)
		default:
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		var x any
		return x, json.Unmarshal(body, &x)
	}
}

// defaultSent defaults the objects obj's Go value cannot show were sent:
// zero structs tagged omitzero that body, the JSON obj was just decoded
// from (see bodyJSON), holds. Defaulting again later changes nothing
// more, and an object not sent stays absent.
func (h *Handler) defaultSent(obj meta.Object, body func() (any, error)) error {
	p := h.Resource.Plan
	if p == nil || p.Unstructured || !p.Hides(obj) {
		return nil
	}
	x, err := body()
	if err != nil {
		return status.BadRequest(decodeErrorMessage(err))
	}
	top, ok := x.(map[string]any)
	if !ok {
		return nil // an encoding that cannot tell (protobuf)
	}
	if err := p.DefaultSent(obj, top); err != nil {
		return status.InternalError(err)
	}
	return nil
}
