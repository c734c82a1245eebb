package apiserver

import (
	"bytes"
	"net/http"
	"reflect"

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
	ser, _, err := s.codecs.Negotiate(r.Header.Get("Accept"), acceptPlain(reflect.TypeOf(obj)))
	if err != nil {
		s.writeError(w, r, status.NotAcceptable(s.mediaTypesFor(reflect.TypeOf(obj))))
		return
	}
	var buf bytes.Buffer
	if err := ser.Encode(&buf, obj); err != nil {
		s.writeError(w, r, status.InternalError(err))
		return
	}
	writeBody(w, r, http.StatusCreated, ser.MediaType(), buf.Bytes())
}
