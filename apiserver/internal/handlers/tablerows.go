package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/watch"
)

// Tables and partial object metadata in JSON are written from values kept
// on the watch cache's entries: printer columns are a function of the
// object, so each object version's cells are computed once (from its
// stored bytes, without decoding it) and kept next to them, and the row's
// metadata is the stored value's own "metadata" bytes with the
// resourceVersion spliced in. Only a date cell depends on the time of the
// request: the row keeps the time and renders the age per request.

// rowData is what a Table row or a partial object needs of one object
// version.
type rowData struct {
	// cells are the row's cells encoded as JSON and separated by commas,
	// with a hole per date cell (see tables.AppendDateHole).
	cells []byte
	// meta is the encoded metadata when it cannot be spliced from the
	// stored value; nil when it is kv.Value[metaStart:metaEnd] with the
	// resourceVersion placeholder at rvAt.
	meta                     []byte
	metaStart, metaEnd, rvAt int
	// mfAt is where the managedFields placeholder is when the value
	// keeps them apart (see sharedfields.go), or -1.
	mfAt int
}

// entryRow returns the entry's rowData, computing it the first time.
func entryRow(r *registry.Resource, e *watch.Entry) (*rowData, error) {
	v, err := e.Derived(r.VersionKey(registry.RowKey), func() (any, error) { return computeRow(r, e) })
	if err != nil {
		return nil, registry.InternalError(err)
	}
	return v.(*rowData), nil
}

// computeRow reads the cells and the metadata span from the stored JSON;
// values stored in another encoding (or without the placeholder) are
// decoded and encoded as JSON once.
func computeRow(r *registry.Resource, e *watch.Entry) (*rowData, error) {
	kv := e.KV
	rd := &rowData{rvAt: -1, mfAt: -1}
	var doc []byte
	if at := r.SpliceAt(kv); at >= 0 {
		mfAt := -1
		if registry.HasShared(kv) {
			mfAt = registry.MfMarkerIndex(kv.Value, at+len(registry.RvMarker))
		}
		if s, end, ok := jsonscan.ObjectField(kv.Value, "metadata"); ok && s < at && at < end && mfAt < end && (mfAt >= 0) == registry.HasShared(kv) {
			rd.metaStart, rd.metaEnd, rd.rvAt, rd.mfAt = s, end, at, mfAt
			var err error
			if doc, err = r.AppendJSON(make([]byte, 0, len(kv.Value)+24), kv); err != nil {
				return nil, err
			}
		}
	}
	if doc == nil {
		obj, err := r.Object(e)
		if err != nil {
			return nil, err
		}
		if doc, err = json.Marshal(obj); err != nil {
			return nil, err
		}
		s, end, ok := jsonscan.ObjectField(doc, "metadata")
		if !ok {
			return nil, errNoMetadata
		}
		rd.meta = doc[s:end:end]
	}
	var specs [maxStackColumns]tables.Spec
	rd.cells = printer(&r.Kind, specs[:0]).AppendCells(nil, doc, func() (meta.Object, error) { return r.Object(e) })
	return rd, nil
}

var errNoMetadata = errors.New("encoded object has no metadata")

// appendMeta appends the object's metadata as JSON.
func (rd *rowData) appendMeta(dst []byte, e *watch.Entry) []byte {
	if rd.rvAt < 0 {
		return append(dst, rd.meta...)
	}
	v := e.KV.Value
	dst = append(dst, v[rd.metaStart:rd.rvAt]...)
	dst = append(dst, `"resourceVersion":"`...)
	dst = strconv.AppendInt(dst, e.KV.ModRevision, 10)
	dst = append(dst, '"')
	if rd.mfAt < 0 {
		return append(dst, v[rd.rvAt+len(registry.RvMarker):rd.metaEnd]...)
	}
	dst = append(dst, v[rd.rvAt+len(registry.RvMarker):rd.mfAt]...)
	dst = append(dst, e.KV.Shared.Value()...)
	return append(dst, v[rd.mfAt+len(registry.MfMarker):rd.metaEnd]...)
}

// rowWriter renders entries as Table rows or partial objects in JSON for
// one request.
type rowWriter struct {
	r       *registry.Resource
	out     ReadOutput
	now     time.Time
	partial []byte // {"kind":"PartialObjectMetadata","apiVersion":…,"metadata":
}

func newRowWriter(r *registry.Resource, out ReadOutput) *rowWriter {
	head, _ := json.Marshal(&meta.TypeMeta{Kind: tables.AsPartial, APIVersion: out.ApiVersion})
	head = append(head[:len(head)-1], `,"metadata":`...)
	return &rowWriter{r: r, out: out, now: time.Now(), partial: head}
}

// prepare computes the rowData of every entry before anything is
// written, so that a failure is still an error response, and, for
// includeObject=Object, decodes what cannot be spliced.
func (w *rowWriter) prepare(entries []*watch.Entry) error {
	for _, e := range entries {
		if _, err := entryRow(w.r, e); err != nil {
			return err
		}
		if w.out.Include == tables.IncludeObjectFull && !w.r.Spliceable(e.KV) {
			if _, err := w.r.Object(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendPartial appends the entry as a PartialObjectMetadata.
func (w *rowWriter) appendPartial(dst []byte, e *watch.Entry) []byte {
	rd, _ := entryRow(w.r, e) // prepared
	dst = append(dst, w.partial...)
	return append(rd.appendMeta(dst, e), '}')
}

// appendRow appends the entry as a Table row, with the object as
// includeObject asks.
func (w *rowWriter) appendRow(dst []byte, e *watch.Entry) []byte {
	rd, _ := entryRow(w.r, e) // prepared
	dst = append(dst, `{"cells":[`...)
	dst = tables.AppendAged(dst, rd.cells, w.now)
	dst = append(dst, ']')
	switch w.out.Include {
	case tables.IncludeObjectMeta:
		dst = append(dst, `,"object":`...)
		dst = w.appendPartial(dst, e)
	case tables.IncludeObjectFull:
		dst = append(dst, `,"object":`...)
		dst = w.appendObject(dst, e)
	default: // None: null, as kube-apiserver sends it
		dst = append(dst, `,"object":null`...)
	}
	return append(dst, '}')
}

// appendObject appends the whole object as JSON: the stored bytes when
// they splice, else the encoded decoded object.
func (w *rowWriter) appendObject(dst []byte, e *watch.Entry) []byte {
	if at := w.r.SpliceAt(e.KV); at >= 0 {
		return registry.AppendSpliced(dst, e.KV, at)
	}
	obj, _ := w.r.Object(e) // prepared
	b, err := json.Marshal(obj)
	if err != nil {
		return append(dst, "null"...)
	}
	return append(dst, b...)
}

// writeRowList writes a page as a JSON Table or PartialObjectMetadataList
// from the entries' rowData.
func (h *Handler) writeRowList(req *Request, out ReadOutput, p *page) {
	w := newRowWriter(h.Resource, out)
	if err := w.prepare(p.Entries); err != nil {
		h.fail(req, err)
		return
	}
	var head []byte
	var err error
	item := w.appendRow
	if out.As == tables.AsTable {
		head, err = json.Marshal(&tables.Table{TypeMeta: meta.TypeMeta{Kind: tables.AsTable, APIVersion: out.ApiVersion},
			ListMeta: p.meta, ColumnDefinitions: tableColumns(h.Resource), Rows: []tables.Row{}})
	} else {
		item = w.appendPartial
		head, err = json.Marshal(&tables.PartialList{TypeMeta: meta.TypeMeta{Kind: tables.AsPartialList, APIVersion: out.ApiVersion},
			ListMeta: p.meta, Items: []tables.PartialObject{}})
	}
	if err != nil {
		h.fail(req, status.InternalError(err))
		return
	}
	// head ends in `[]}`: reopen the array.
	head = head[:len(head)-2]
	writeItems(&h.bodies, req, out.contentType(), head, p.Entries, item)
}

// writeRowObject writes one entry as a JSON Table of one row or as a
// PartialObjectMetadata.
func (h *Handler) writeRowObject(req *Request, out ReadOutput, e *watch.Entry) {
	w := newRowWriter(h.Resource, out)
	if err := w.prepare([]*watch.Entry{e}); err != nil {
		h.fail(req, err)
		return
	}
	if out.As == tables.AsPartial {
		buf := append(w.appendPartial(nil, e), '\n')
		h.bodies.Write(req.Writer, req.Request, http.StatusOK, out.contentType(), buf)
		return
	}
	t := &tables.Table{TypeMeta: meta.TypeMeta{Kind: tables.AsTable, APIVersion: out.ApiVersion},
		ColumnDefinitions: tableColumns(h.Resource), Rows: []tables.Row{}}
	t.ListMeta.ResourceVersion = strconv.FormatInt(e.KV.ModRevision, 10)
	head, err := json.Marshal(t)
	if err != nil {
		h.fail(req, status.InternalError(err))
		return
	}
	writeItems(&h.bodies, req, out.contentType(), head[:len(head)-2], []*watch.Entry{e}, w.appendRow)
}

// writeItems writes a JSON body: head (which opens an array), the entries
// as item appends them separated by commas, and the closing "]}". A body
// that fits in one chunk goes out whole with its Content-Length; a larger
// one is written a chunk at a time as it is made, so that its size is
// never held in memory.
func writeItems(bodies *responsewriters.Bodies, req *Request, contentType string, head []byte, entries []*watch.Entry, item func([]byte, *watch.Entry) []byte) {
	body, buf := bodies.NewList(req.Writer, req.Request, contentType, -1)
	buf = append(buf, head...)
	for i, e := range entries {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = item(buf, e)
		var ok bool
		if buf, ok = body.Flush(buf); !ok {
			break
		}
	}
	body.Finish(append(buf, "]}\n"...))
}
