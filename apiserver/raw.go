package apiserver

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"slices"

	"github.com/kapi-dev/kapi/apiserver/internal/splice"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/watch"
)

// How objects are stored (a floating comment: the package doc points
// here).
//
// An object is stored under the key /GROUP/RESOURCE/NAMESPACE/NAME
// (/GROUP/RESOURCE/NAME for a cluster-scoped kind; GROUP is "core" for the
// legacy group), and the store's revision of that key is the object's
// resourceVersion. The value is the object encoded in
// [Options].StorageMediaType, without its resourceVersion, which is only
// known once the write is done:
//
//   - JSON, the default, is the object as encoding/json writes it (the
//     bytes a JSON answer carries, without the trailing newline), with
//     metadata.resourceVersion set to a placeholder, the one-character
//     string "\u0000". The first "resourceVersion":"\u0000" in the value
//     is metadata's: apiVersion, kind and metadata are written first, the
//     fields of metadata before resourceVersion are strings, and a string
//     cannot hold the unescaped quotes around the marker. A JSON get, a JSON list and the answer to a JSON
//     write are the value with the key's revision spliced in place of the
//     placeholder, without decoding or encoding the object; a value
//     without the placeholder (written by something else) is decoded and
//     encoded instead. In a store that keeps values in memory
//     ([storage.SharedKeeper], such as storage/memory), a
//     metadata.managedFields member the resource has written lately is
//     left out of the value too, with the placeholder
//     "managedFields":"\u0001" in its place, and kept once as the value's
//     shared part however many values hold it (every object one client
//     wrote in one second): answers splice it back as they splice the
//     revision. A value whose labels or annotations read as that
//     placeholder keeps its managedFields, and so does every value of a
//     store that persists them, such as etcd;
//   - Kubernetes protobuf and CBOR values carry no resourceVersion at all,
//     start with their encoding's magic bytes (codec.Sniff tells the three
//     apart) and are decoded for every JSON answer.
//
// Values of every encoding are read whatever the option says, so a store
// written before a change of StorageMediaType stays readable.
//
// Objects of a kind served as meta.Unstructured with a schema are read
// through the schema the kind has now, as kube-apiserver reads custom
// resources: a value stored before the schema changed (a kind replaced
// by [Server.Install], a server started with a newer schema) loses the
// fields the schema no longer knows and gains its new defaults when it
// is read, without being written. The watch cache does this once per
// stored object version, as the value enters it, and keeps the value as
// read, which gets, lists and watches then splice and encode as any
// other; a value that already matches the schema is kept as stored. A
// write starts from the object as read. Values are
// decoded, and the results of patches too, by the application/json
// serializer (or the one of the value's encoding) of [Options].Codecs.
//

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

// rvMarkerIndex is bytes.Index(value, rvMarker), found by the marker's
// backslash rather than its opening quote: JSON text holds a backslash
// only in escapes, but a quote around every key and string, which made
// bytes.Index stop at each of them.
func rvMarkerIndex(value []byte) int {
	return splice.MarkerIndex(value, 0, rvMarker, len(`"resourceVersion":"`))
}

// appendJSON appends a stored object as JSON with its resourceVersion.
func (r *resource) appendJSON(dst []byte, kv *storage.KeyValue) ([]byte, error) {
	if at := r.spliceAt(kv); at >= 0 {
		return appendSpliced(dst, kv, at), nil
	}
	obj, err := r.decode(kv)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(obj)
	return append(dst, b...), err
}

// appendSpliced appends a stored value whose resourceVersion placeholder
// is at at, with the revision in its place.
func appendSpliced(dst []byte, kv *storage.KeyValue, at int) []byte {
	dst = slices.Grow(dst, len(kv.Value)+sharedGrowth(kv)+len(`"resourceVersion":""`)+20-len(rvMarker))
	dst = append(dst, kv.Value[:at]...)
	dst = splice.AppendRVField(dst, kv.ModRevision)
	head, mf, tail := splitShared(kv, kv.Value[at+len(rvMarker):])
	dst = append(append(dst, head...), mf...)
	return append(dst, tail...)
}

// writeRawList writes a page as a JSON list straight from the stored
// bytes (or, for objects that do not splice, their JSON kept per object
// version), as it is made. The output is byte-for-byte what encoding the
// decoded List would give.
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
	ats := h.spliceBuffer(len(p.entries))
	defer h.listSplices.Put(ats)
	size, err := r.rawListSize(head, p.entries, *ats)
	if err != nil {
		h.fail(req, err)
		return
	}
	body, buf := h.bodies.NewList(req.w, req.r, codec.MediaTypeJSON, size)
	buf = append(append(buf, head...), '[')
	for i, e := range p.entries {
		if i > 0 {
			buf = append(buf, ',')
		}
		if at := (*ats)[i]; at >= 0 {
			buf = appendSpliced(buf, e.KV, int(at))
		} else if buf, err = r.appendConvertedJSON(buf, e); err != nil {
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
func (h *handler) spliceBuffer(n int) *[]int32 {
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
func (r *resource) rawListSize(head []byte, entries []*watch.Entry, ats []int32) (int, error) {
	size := len(head) + len("[]}\n") + max(len(entries)-1, 0) // commas
	rvLen := len(`"resourceVersion":""`)
	for i, e := range entries {
		kv := e.KV
		at := r.spliceAt(kv)
		if at > math.MaxInt32 {
			at = -1 // not spliced: a value of 2 GiB is no list item
		}
		ats[i] = int32(at)
		if at < 0 {
			b, err := r.convertedJSON(e)
			if err != nil {
				return 0, err
			}
			size += len(b)
			continue
		}
		size += len(kv.Value) - len(rvMarker) + rvLen + digits(kv.ModRevision) + sharedGrowth(kv)
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
func (h *handler) writeRawObject(req *request, e *watch.Entry) {
	if at := h.r.spliceAt(e.KV); at >= 0 {
		h.writeSpliced(req, http.StatusOK, e.KV, at)
		return
	}
	_, end := h.startSpan(req.r.Context(), "encode")
	defer end(nil)
	b, err := h.r.convertedJSON(e)
	if err != nil {
		h.fail(req, err)
		return
	}
	out, done := h.bodies.Start(req.w, req.r, http.StatusOK, codec.MediaTypeJSON, len(b)+1)
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
func (h *handler) writeSpliced(req *request, code int, kv *storage.KeyValue, at int) {
	_, end := h.startSpan(req.r.Context(), "encode")
	defer end(nil)
	var rv [48]byte
	head := kv.Value[:at]
	mid := splice.AppendRVField(rv[:0], kv.ModRevision)
	rest, mf, tail := splitShared(kv, kv.Value[at+len(rvMarker):])
	out, done := h.bodies.Start(req.w, req.r, code, codec.MediaTypeJSON, len(head)+len(mid)+len(rest)+len(mf)+len(tail)+1)
	_, _ = out.Write(head)
	_, _ = out.Write(mid)
	_, _ = out.Write(rest)
	if mf != "" {
		_, _ = out.Write(stringBytes(mf))
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
func (h *handler) writeStored(req *request, code int, obj meta.Object, kv *storage.KeyValue) {
	obj, err := h.r.inVersion(obj)
	if err != nil {
		h.fail(req, err)
		return
	}
	if kv != nil {
		if ser, _, err := h.negotiate(req, obj); err == nil && ser.MediaType() == codec.MediaTypeJSON {
			if at := h.r.spliceAt(kv); at >= 0 {
				h.writeSpliced(req, code, kv, at)
				return
			}
			_, end := h.startSpan(req.r.Context(), "encode")
			buf, err := h.r.appendJSON(make([]byte, 0, len(kv.Value)+24), kv)
			if err == nil {
				h.bodies.Write(req.w, req.r, code, codec.MediaTypeJSON, append(buf, '\n'))
				end(nil)
				return
			}
			end(err)
		}
	}
	h.writeObject(req, code, obj)
}
