package responsewriters

import (
	"bytes"
	"net/http"
	"reflect"
	"strconv"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// WriteStatus writes err as a Status in a media type the client accepts
// among codecs' whose serializer can encode every one of types (JSON
// when it accepts none of them), with Retry-After when the Status asks
// for it.
func WriteStatus(w http.ResponseWriter, r *http.Request, codecs *codec.Registry, types []reflect.Type, err error) {
	st := status.FromError(err)
	if st.Code == 0 {
		st.Code = http.StatusInternalServerError
	}
	ser, _, nerr := codecs.Negotiate(r.Header.Get("Accept"), AcceptPlain(types...))
	if nerr != nil || st.Reason == meta.StatusReasonNotAcceptable {
		// As kube-apiserver, a failed negotiation is reported in JSON.
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
