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
	"github.com/kapi-dev/kapi/watch"
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
	if i < 0 || r.versions != nil && !r.spliceable(kv) {
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
func (h *handler) writeRawList(req *request, p *page) {
	_, end := h.startSpan(req.r.Context(), "encode")
	defer end(nil)
	r := h.r
	head, err := json.Marshal(&meta.List{TypeMeta: meta.TypeMeta{Kind: r.listKind, APIVersion: r.apiVersion}, ListMeta: p.meta})
	if err != nil {
		h.fail(req, status.InternalError(err))
		return
	}
	// head ends in `"items":null}`; reopen the items array.
	head = bytes.TrimSuffix(head, []byte(`null}`))
	if size, ok := r.rawListSize(head, p.entries); ok && size > streamThreshold {
		r.streamRawList(req, head, p.entries, size)
		return
	}
	size := len(head) + 3
	for _, e := range p.entries {
		size += len(e.KV.Value) + 24
	}
	buf := make([]byte, 0, size)
	buf = append(buf, head...)
	buf = append(buf, '[')
	for i, e := range p.entries {
		if i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = r.appendEntryJSON(buf, e); err != nil {
			h.fail(req, status.InternalError(err))
			return
		}
	}
	buf = append(buf, "]}\n"...)
	writeBody(req.w, req.r, http.StatusOK, codec.MediaTypeJSON, buf)
}

// streamThreshold is the list size above which a list is written in
// chunks rather than assembled whole: a list of 10,000 Widgets is tens of
// megabytes, which would otherwise be allocated, filled and collected on
// every request.
const streamThreshold = 256 << 10

// streamChunk is how much of a streamed list is gathered per write.
const streamChunk = 1 << 20

// rawListSize is the exact size of the JSON list head[items] when every
// value is stored as JSON with the resourceVersion placeholder (or, in
// another version of the kind, converted and encoded once), so that the
// Content-Length can be sent before the items; ok is false otherwise.
func (r *resource) rawListSize(head []byte, entries []*watch.Entry) (size int, ok bool) {
	size = len(head) + len("[]}\n") + max(len(entries)-1, 0) // commas
	rvLen := len(`"resourceVersion":""`)
	for _, e := range entries {
		kv := e.KV
		if !r.spliceable(kv) {
			b, err := r.convertedJSON(e)
			if r.versions == nil || err != nil {
				return 0, false
			}
			size += len(b)
			continue
		}
		size += len(kv.Value) - len(rvMarker) + rvLen + digits(kv.ModRevision)
	}
	return size, true
}

// digits is the length of n in decimal.
func digits(n int64) int {
	d := 1
	for n >= 10 || n <= -10 {
		n /= 10
		d++
	}
	if n < 0 {
		d++
	}
	return d
}

// streamRawList writes a list of size bytes from the stored values in
// chunks; rawListSize has checked that every value splices without
// decoding, so nothing can fail once the headers are out.
func (r *resource) streamRawList(req *request, head []byte, entries []*watch.Entry, size int) {
	out, done := startBody(req.w, req.r, http.StatusOK, codec.MediaTypeJSON, size)
	defer done()
	buf := make([]byte, 0, min(size, streamChunk)+4<<10)
	buf = append(append(buf, head...), '[')
	for i, e := range entries {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf, _ = r.appendEntryJSON(buf, e)
		if len(buf) >= streamChunk {
			if _, err := out.Write(buf); err != nil {
				return // the client has gone
			}
			buf = buf[:0]
		}
	}
	_, _ = out.Write(append(buf, "]}\n"...))
}

// writeRawObject writes one stored object as JSON straight from its bytes.
func (h *handler) writeRawObject(req *request, e *watch.Entry) {
	_, end := h.startSpan(req.r.Context(), "encode")
	defer end(nil)
	buf, err := h.r.appendEntryJSON(make([]byte, 0, len(e.KV.Value)+24), e)
	if err != nil {
		h.fail(req, status.InternalError(err))
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
func (h *handler) writeStored(req *request, code int, obj meta.Object, kv *storage.KeyValue) {
	obj, err := h.r.inVersion(obj)
	if err != nil {
		h.fail(req, err)
		return
	}
	if kv != nil {
		if ser, _, err := h.negotiate(req, obj); err == nil && ser.MediaType() == codec.MediaTypeJSON {
			_, end := h.startSpan(req.r.Context(), "encode")
			buf, err := h.r.appendJSON(make([]byte, 0, len(kv.Value)+24), kv)
			if err == nil {
				writeBody(req.w, req.r, code, codec.MediaTypeJSON, append(buf, '\n'))
				end(nil)
				return
			}
			end(err)
		}
	}
	h.writeObject(req, code, obj)
}
