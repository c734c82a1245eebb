package handlers

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/splice"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/watch"
)

// WriteRawList writes a page as a JSON list straight from the stored
// bytes (or, for objects that do not splice, their JSON kept per object
// version), as it is made. The output is byte-for-byte what encoding the
// decoded List would give.
func (h *Handler) WriteRawList(req *Request, p *page) {
	_, end := h.StartSpan(req.Request.Context(), "encode")
	defer end(nil)
	r := h.Resource
	head, err := json.Marshal(&meta.List{TypeMeta: meta.TypeMeta{Kind: r.ListKind, APIVersion: r.APIVersion}, ListMeta: p.meta})
	if err != nil {
		h.fail(req, status.InternalError(err))
		return
	}
	// head ends in `"items":null}`; reopen the items array.
	head = bytes.TrimSuffix(head, []byte(`null}`))
	ats := h.spliceBuffer(len(p.Entries))
	defer h.listSplices.Put(ats)
	size, err := rawListSize(r, head, p.Entries, *ats)
	if err != nil {
		h.fail(req, err)
		return
	}
	body, buf := h.bodies.NewList(req.Writer, req.Request, codec.MediaTypeJSON, size)
	buf = append(append(buf, head...), '[')
	for i, e := range p.Entries {
		if i > 0 {
			buf = append(buf, ',')
		}
		if at := (*ats)[i]; at >= 0 {
			buf = registry.AppendSpliced(buf, e.KV, int(at))
		} else if buf, err = r.AppendConvertedJSON(buf, e); err != nil {
			body.Abort(buf) // rawListSize has made every item once
			return
		}
		var ok bool
		if buf, ok = body.Flush(buf); !ok {
			break
		}
	}
	body.Finish(append(buf, "]}\n"...))
}

// spliceBuffer returns a buffer for the splice positions of n items.
func (h *Handler) spliceBuffer(n int) *[]int32 {
	p, _ := h.listSplices.Get().(*[]int32)
	if p == nil {
		p = new([]int32)
	}
	if cap(*p) < n {
		*p = make([]int32, n)
	}
	*p = (*p)[:n]
	return p
}

// rawListSize is the exact size of the JSON list head[items], so that
// the Content-Length can be sent before the items: the stored values with
// their resourceVersion spliced in, and the JSON of those that do not
// splice (in another version of the kind, or stored in another
// encoding), made and kept on their entries as it is measured. It
// records in ats where each item's resourceVersion is spliced (-1: not
// spliced), so that writing the items does not search them again: a
// search reads much of a value that the machine's caches no longer hold
// by the time the next item's is read.
func rawListSize(r *registry.Resource, head []byte, entries []*watch.Entry, ats []int32) (int, error) {
	size := len(head) + len("[]}\n") + max(len(entries)-1, 0) // commas
	rvLen := len(`"resourceVersion":""`)
	for i, e := range entries {
		kv := e.KV
		at := r.SpliceAt(kv)
		if at > math.MaxInt32 {
			at = -1 // not spliced: a value of 2 GiB is no list item
		}
		ats[i] = int32(at)
		if at < 0 {
			b, err := r.ConvertedJSON(e)
			if err != nil {
				return 0, err
			}
			size += len(b)
			continue
		}
		size += len(kv.Value) - len(registry.RvMarker) + rvLen + digits(kv.ModRevision) + registry.SharedGrowth(kv)
	}
	return size, nil
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

// writeRawObject writes one stored object as JSON straight from its bytes.
func (h *Handler) writeRawObject(req *Request, e *watch.Entry) {
	if at := h.Resource.SpliceAt(e.KV); at >= 0 {
		h.writeSpliced(req, http.StatusOK, e.KV, at)
		return
	}
	_, end := h.StartSpan(req.Request.Context(), "encode")
	defer end(nil)
	b, err := h.Resource.ConvertedJSON(e)
	if err != nil {
		h.fail(req, err)
		return
	}
	out, done := h.bodies.Start(req.Writer, req.Request, http.StatusOK, codec.MediaTypeJSON, len(b)+1)
	_, _ = out.Write(b)
	_, _ = out.Write(newline)
	done()
}

// writeSpliced writes a stored value whose resourceVersion placeholder is
// at at as JSON, in pieces: the stored bytes themselves around the
// resourceVersion, not copied into one buffer first. Besides the copy, a
// buffer per answer, the size of the stored value, left the values a
// write keeps scattered among as many freed ones of their size, in pages
// the runtime could then not return.
func (h *Handler) writeSpliced(req *Request, code int, kv *storage.KeyValue, at int) {
	_, end := h.StartSpan(req.Request.Context(), "encode")
	defer end(nil)
	var rv [48]byte
	head := kv.Value[:at]
	mid := splice.AppendRVField(rv[:0], kv.ModRevision)
	rest, mf, tail := registry.SplitShared(kv, kv.Value[at+len(registry.RvMarker):])
	out, done := h.bodies.Start(req.Writer, req.Request, code, codec.MediaTypeJSON, len(head)+len(mid)+len(rest)+len(mf)+len(tail)+1)
	_, _ = out.Write(head)
	_, _ = out.Write(mid)
	_, _ = out.Write(rest)
	if mf != "" {
		_, _ = out.Write(registry.StringBytes(mf))
		_, _ = out.Write(tail)
	}
	_, _ = out.Write(newline)
	done()
}

var newline = []byte{'\n'}

// writeStored answers a create or update with the object written. When
// the answer is plain JSON it is the stored value with its
// resourceVersion spliced in, which is what encoding obj gives, without
// encoding it again; kv nil (a dry run, a delete) or any other media type
// encodes obj.
func (h *Handler) writeStored(req *Request, code int, obj meta.Object, kv *storage.KeyValue) {
	obj, err := h.Resource.InVersion(obj)
	if err != nil {
		h.fail(req, err)
		return
	}
	if kv != nil {
		if ser, _, err := h.negotiate(req, obj); err == nil && ser.MediaType() == codec.MediaTypeJSON {
			if at := h.Resource.SpliceAt(kv); at >= 0 {
				h.writeSpliced(req, code, kv, at)
				return
			}
			_, end := h.StartSpan(req.Request.Context(), "encode")
			buf, err := h.Resource.AppendJSON(make([]byte, 0, len(kv.Value)+24), kv)
			if err == nil {
				h.bodies.Write(req.Writer, req.Request, code, codec.MediaTypeJSON, append(buf, '\n'))
				end(nil)
				return
			}
			end(err)
		}
	}
	h.writeObject(req, code, obj)
}
