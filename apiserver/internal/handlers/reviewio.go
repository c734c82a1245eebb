package handlers

import (
	"bytes"
	"net/http"
	"reflect"

	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// DecodeReview reads a review body of the media type it declares.
func (s *Core) DecodeReview(r *http.Request, obj meta.Object) error {
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return status.BadRequest("the body of the request was empty")
	}
	ser, _, err := s.Codecs.ForContentType(r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	if _, err := ser.Decode(body, obj); err != nil {
		return status.BadRequest(decodeErrorMessage(err))
	}
	return nil
}

// WriteReview writes the answered review with 201 Created.
func (s *Core) WriteReview(w http.ResponseWriter, r *http.Request, obj meta.Object) {
	ser, _, err := responsewriters.Negotiate(s.Codecs, r.Header.Get("Accept"), reflect.TypeOf(obj))
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	if err := s.bodies.WriteEncoded(w, r, http.StatusCreated, ser, ser.MediaType(), obj); err != nil {
		s.WriteError(w, r, status.InternalError(err))
	}
}
