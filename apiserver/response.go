package apiserver

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// negotiate picks the response serializer for an object or list response.
func (s *Server) negotiate(r *http.Request) (codec.Serializer, codec.MediaType, error) {
	return s.codecs.Negotiate(r.Header.Get("Accept"), acceptPlain)
}

// acceptPlain accepts media types without a transformation (as=Table and
// friends are not served yet) and refuses streaming-only entries.
func acceptPlain(mt codec.MediaType, _ codec.Serializer) bool {
	return mt.Param("as") == "" && mt.Param("stream") == ""
}

// writeObject encodes one object (or list, or Status) in the negotiated
// media type.
func (s *Server) writeObject(req *request, code int, obj any) {
	ser, _, err := s.negotiate(req.r)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	s.writeEncoded(req, code, ser, ser.MediaType(), obj)
}

// writeEncoded encodes v with ser and writes it.
func (s *Server) writeEncoded(req *request, code int, ser codec.Serializer, contentType string, v any) {
	var buf bytes.Buffer
	if err := ser.Encode(&buf, v); err != nil {
		s.writeError(req.w, req.r, status.InternalError(err))
		return
	}
	writeBody(req.w, req.r, code, contentType, buf.Bytes())
}

// writeError is the one sink for failures: it writes err as a Status in a
// media type the client accepts (JSON when it accepts none we know), with
// Retry-After when the Status asks for it.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	st := status.FromError(err)
	if st.Code == 0 {
		st.Code = http.StatusInternalServerError
	}
	ser, _, nerr := s.codecs.Negotiate(r.Header.Get("Accept"), acceptPlain)
	if nerr != nil {
		ser = codec.JSON{}
	}
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	var buf bytes.Buffer
	if eerr := ser.Encode(&buf, &st); eerr != nil {
		buf.Reset()
		ser = codec.JSON{}
		_ = ser.Encode(&buf, status.InternalError(eerr).Status)
	}
	w.Header().Set("Content-Type", ser.MediaType())
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(buf.Bytes())
}

// successStatus is the Status a delete answers with when the object is
// gone.
func successStatus(r *resource, obj meta.Object) *meta.Status {
	m := obj.GetObjectMeta()
	return &meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   meta.StatusSuccess,
		Details:  &meta.StatusDetails{Name: m.Name, Group: r.kind.Group, Kind: r.kind.Resource, UID: m.UID},
	}
}

// addWarning adds a Warning header in the form kube-apiserver uses.
func addWarning(w http.ResponseWriter, msg string) {
	w.Header().Add("Warning", `299 - "`+strings.ReplaceAll(msg, `"`, `\"`)+`"`)
}
