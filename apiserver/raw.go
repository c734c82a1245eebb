package apiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// Stored values are the object's JSON with a placeholder where the
// resourceVersion goes, since the revision is only known once the write
// is done. Serving JSON then means splicing the revision in: no decoding
// and no re-encoding on reads.
const rvPlaceholder = "\x00"

// rvMarker is how the placeholder reads in the stored JSON. Only the
// metadata's resourceVersion can produce it: user strings escape quotes,
// and metadata comes before every other field that could hold a key of
// that name.
var rvMarker = []byte(`"resourceVersion":"\u0000"`)

// appendJSON appends a stored object as JSON with its resourceVersion.
func (r *resource) appendJSON(dst []byte, kv *storage.KeyValue) ([]byte, error) {
	i := bytes.Index(kv.Value, rvMarker)
	if i < 0 {
		obj, err := r.decode(kv)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(obj)
		return append(dst, b...), err
	}
	dst = append(dst, kv.Value[:i]...)
	dst = append(dst, `"resourceVersion":"`...)
	dst = strconv.AppendInt(dst, kv.ModRevision, 10)
	dst = append(dst, '"')
	return append(dst, kv.Value[i+len(rvMarker):]...), nil
}

// writeRawList writes a page as a JSON list straight from the stored
// bytes. The output is byte-for-byte what encoding the decoded List would
// give.
func (s *Server) writeRawList(req *request, p *page) {
	r := req.res
	head, err := json.Marshal(&meta.List{TypeMeta: meta.TypeMeta{Kind: r.listKind, APIVersion: r.apiVersion}, ListMeta: p.meta})
	if err != nil {
		s.writeError(req.w, req.r, status.InternalError(err))
		return
	}
	// head ends in `"items":null}`; reopen the items array.
	head = bytes.TrimSuffix(head, []byte(`null}`))
	size := len(head) + 3
	for _, kv := range p.kvs {
		size += len(kv.Value) + 24
	}
	buf := make([]byte, 0, size)
	buf = append(buf, head...)
	buf = append(buf, '[')
	for i, kv := range p.kvs {
		if i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = r.appendJSON(buf, kv); err != nil {
			s.writeError(req.w, req.r, status.InternalError(err))
			return
		}
	}
	buf = append(buf, "]}\n"...)
	writeBody(req.w, req.r, http.StatusOK, codec.MediaTypeJSON, buf)
}

// writeRawObject writes one stored object as JSON straight from its bytes.
func (s *Server) writeRawObject(req *request, kv *storage.KeyValue) {
	buf, err := req.res.appendJSON(make([]byte, 0, len(kv.Value)+24), kv)
	if err != nil {
		s.writeError(req.w, req.r, status.InternalError(err))
		return
	}
	buf = append(buf, '\n')
	writeBody(req.w, req.r, http.StatusOK, codec.MediaTypeJSON, buf)
}

// writeStored answers a create or update with the object written. When
// the answer is plain JSON it is the stored value with its
// resourceVersion spliced in, which is what encoding obj gives, without
// encoding it again; kv nil (a dry run, a delete) or any other media type
// encodes obj.
func (s *Server) writeStored(req *request, code int, obj meta.Object, kv *storage.KeyValue) {
	if kv != nil {
		if ser, _, err := s.negotiate(req, obj); err == nil && ser.MediaType() == codec.MediaTypeJSON {
			buf, err := req.res.appendJSON(make([]byte, 0, len(kv.Value)+24), kv)
			if err == nil {
				writeBody(req.w, req.r, code, codec.MediaTypeJSON, append(buf, '\n'))
				return
			}
		}
	}
	s.writeObject(req, code, obj)
}
