package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/fieldvalidation"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// readBody reads the request body up to the server's limit (413 beyond).
func (s *Core) readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	limit := s.MaxRequestBodyBytes
	if r.ContentLength > limit {
		return nil, status.RequestEntityTooLarge(fmt.Sprintf("limit is %d", limit))
	}
	b, err := ReadAll(io.LimitReader(r.Body, limit+1), r.ContentLength)
	if err != nil {
		return nil, status.BadRequest(fmt.Sprintf("error reading request body: %v", err))
	}
	if int64(len(b)) > limit {
		return nil, status.RequestEntityTooLarge(fmt.Sprintf("limit is %d", limit))
	}
	return b, nil
}

// ReadAll is io.ReadAll into a buffer sized for a body of the announced
// length (size, or -1 when unknown): one allocation rather than a
// doubling from 512 bytes up.
func ReadAll(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 {
		return io.ReadAll(r)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// validateDryRun checks the dryRun values of a request's options as
// kube-apiserver's ValidateDryRun does: "All" is the only one, and any
// other makes the options Invalid (422).
func validateDryRun(values []string) status.FieldErrors {
	for _, v := range values {
		if v != "All" {
			return status.FieldErrors{status.NotSupported(status.NewPath("dryRun"), values, []string{"All"})}
		}
	}
	return nil
}

// decodeBody decodes a create or update body into a new object of the
// request's kind, applying field validation and checking the body's
// apiVersion and kind against the URL.
func (h *Handler) decodeBody(req *Request, directive fieldvalidation.Directive) (obj meta.Object, err error) {
	_, end := h.StartSpan(req.Request.Context(), "decode")
	defer func() { end(err) }()
	body, err := h.readBody(req.Request)
	if err != nil {
		return nil, err
	}
	ser, _, err := h.Codecs.ForContentType(req.Request.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	obj = h.Resource.Kind.New()
	if !codec.Supports(ser, reflect.TypeOf(obj)) {
		return nil, status.UnsupportedMediaType(req.Request.Header.Get("Content-Type"), h.mediaTypesFor(reflect.TypeOf(obj)))
	}
	if Blank(body) {
		return nil, status.BadRequest("the body of the request was empty")
	}
	strict, err := h.Resource.DecodeJSON(ser, body, obj, false)
	if err != nil {
		return nil, cannotHandle(h.Resource, err)
	}
	// Unstructured kinds learn their unknown fields from the schema.
	strict = append(strict, h.Resource.Plan.Prune(obj)...)
	warnings, err := directive.Check(strict)
	if err != nil {
		return nil, cannotHandle(h.Resource, err)
	}
	addWarnings(req.Writer, warnings)
	if err := CheckTypeMeta(h.Resource, obj); err != nil {
		return nil, err
	}
	filters.AuditObject(req.Request.Context(), obj.GetObjectMeta())
	asJSON := BodyJSON(ser.MediaType(), body)
	if err := h.checkRequired(req, obj, asJSON); err != nil {
		return nil, err
	}
	if err := h.defaultSent(obj, asJSON); err != nil {
		return nil, err
	}
	return obj, nil
}

// mediaTypesFor lists the registered media types that can carry values of
// every given type.
func (s *Core) mediaTypesFor(types ...reflect.Type) []string {
	return responsewriters.MediaTypesFor(s.Codecs, types...)
}

// Blank reports whether body is empty or only white space, without
// copying it.
func Blank(body []byte) bool { return len(bytes.TrimSpace(body)) == 0 }

func decodeErrorMessage(err error) string {
	return "error decoding request body: " + err.Error()
}

// cannotHandle is the 400 for a create or update body that does not
// decode as the kind, or holds unknown or duplicate fields under
// fieldValidation=Strict, worded as kube-apiserver words it.
func cannotHandle(r *registry.Resource, err error) error {
	msg := err.Error()
	var se *status.Error
	if errors.As(err, &se) {
		msg = se.Status.Message
	}
	version := r.APIVersion[strings.LastIndexByte(r.APIVersion, '/')+1:]
	return status.BadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", r.Kind.Kind, version, r.Kind.Kind, msg))
}

// addWarnings adds one Warning header per message.
func addWarnings(w http.ResponseWriter, msgs []string) {
	for _, m := range msgs {
		responsewriters.AddWarning(w.Header(), m)
	}
}

// CheckTypeMeta fills an absent apiVersion or kind from the URL and
// rejects ones that name another kind.
func CheckTypeMeta(r *registry.Resource, obj meta.Object) error {
	tm := obj.GetTypeMeta()
	if tm.APIVersion != "" && tm.APIVersion != r.APIVersion {
		return status.BadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)",
			tm.APIVersion, r.APIVersion))
	}
	if tm.Kind != "" && tm.Kind != r.Kind.Kind {
		return status.BadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)",
			tm.Kind, r.Kind.Kind))
	}
	tm.APIVersion, tm.Kind = r.APIVersion, r.Kind.Kind
	return nil
}

// checkNamespace fills an absent namespace from the URL and rejects a
// different one.
func (req *Request) checkNamespace(r *registry.Resource, obj meta.Object) error {
	m := obj.GetObjectMeta()
	if !r.Kind.Namespaced {
		m.Namespace = ""
		return nil
	}
	if m.Namespace == "" {
		m.Namespace = req.Namespace
	}
	if m.Namespace != req.Namespace {
		return status.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// writeInput is what a create or update reads from its request.
type writeInput struct {
	obj     meta.Object
	dry     bool
	manager string
}

// readWrite reads the field manager, the body (checked against the URL's
// name, for updates, and namespace) and dryRun of a create or update;
// optionsKind names the options in error messages.
func (h *Handler) readWrite(req *Request, optionsKind string) (writeInput, error) {
	var in writeInput
	var err error
	var directive fieldvalidation.Directive
	if in.manager, in.dry, directive, err = writeOptions(req.Request, optionsKind); err != nil {
		return in, err
	}
	if in.obj, err = h.decodeBody(req, directive); err != nil {
		return in, err
	}
	if req.Name != "" {
		if err := req.checkName(in.obj); err != nil {
			return in, err
		}
	}
	if err := req.checkNamespace(h.Resource, in.obj); err != nil {
		return in, err
	}
	return in, nil
}
