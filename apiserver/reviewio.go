package apiserver

import (
	"bytes"
	"net/http"
	"reflect"

	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// decodeReview reads a review body of the media type it declares.
func (s *core) decodeReview(r *http.Request, obj meta.Object) error {
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return status.BadRequest("the body of the request was empty")
	}
	ser, _, err := s.codecs.ForContentType(r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	if _, err := ser.Decode(body, obj); err != nil {
		return status.BadRequest(decodeErrorMessage(err))
	}
	return nil
}

// writeReview writes the answered review with 201 Created.
func (s *core) writeReview(w http.ResponseWriter, r *http.Request, obj meta.Object) {
	ser, _, err := responsewriters.Negotiate(s.codecs, r.Header.Get("Accept"), reflect.TypeOf(obj))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.bodies.WriteEncoded(w, r, http.StatusCreated, ser, ser.MediaType(), obj); err != nil {
		s.writeError(w, r, status.InternalError(err))
	}
}
