package apiserver

import (
	"context"
	"strconv"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/watch"
)

// list serves GET on a collection.
func (h *handler) list(req *request) {
	opts, err := resourceversion.ParseList(requestinfo.Query(req.r))
	if err != nil {
		h.fail(req, err)
		return
	}
	sel, err := h.parseSelectors(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	out, err := h.negotiateRead(req, true, false)
	if err != nil {
		h.fail(req, err)
		return
	}
	p, err := h.listPage(req.r.Context(), req.namespace, sel, opts)
	if err != nil {
		h.fail(req, err)
		return
	}
	if err := h.r.ConvertPage(p.entries); err != nil {
		h.fail(req, err)
		return
	}
	if out.ser.MediaType() == codec.MediaTypeJSON {
		switch out.as {
		case tables.TransformNone:
			h.writeRawList(req, p)
			return
		case tables.AsTable, tables.AsPartialList:
			h.writeRowList(req, out, p)
			return
		}
	}
	if lw, ok := out.ser.(codec.ListWriter); ok {
		switch out.as {
		case tables.TransformNone:
			h.writeEncodedList(req, out.ser, lw, p)
			return
		case tables.AsPartialList:
			h.writePartialList(req, out, lw, p)
			return
		}
	}
	list, err := p.list(h.r)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeRead(req, out, list)
}

// page is one page of a list: the cache's entries, in key order.
type page struct {
	meta    meta.ListMeta
	entries []*watch.Entry
}

// list returns the page as a List of freshly decoded objects.
func (p *page) list(r *registry.Resource) (*meta.List, error) {
	l := &meta.List{TypeMeta: meta.TypeMeta{Kind: r.ListKind, APIVersion: r.APIVersion}, ListMeta: p.meta,
		Items: make([]meta.Object, len(p.entries))}
	for i, e := range p.entries {
		obj, err := listObject(r, e)
		if err != nil {
			return nil, registry.InternalError(err)
		}
		l.Items[i] = obj
	}
	return l, nil
}

// listObject returns an entry's object in the resource's version, freshly
// decoded. An object its kind converts by a call (a webhook) is decoded
// from the JSON kept for it, so that it is not converted again.
func listObject(r *registry.Resource, e *watch.Entry) (meta.Object, error) {
	if !r.KeepsConverted() || r.Spliceable(e.KV) {
		return r.Decode(e.KV)
	}
	b, err := r.ConvertedJSON(e)
	if err != nil {
		return nil, err
	}
	obj := r.NewObject()
	if err := r.DecodeValue(b, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// listPage reads one page (or all) of a collection from the watch cache as
// the options ask. Values are decoded only when selectors need to look
// into them.
func (h *handler) listPage(ctx context.Context, namespace string, sel selectors, opts resourceversion.List) (*page, error) {
	r := h.r
	prefix := listRange(r, namespace, sel)
	lopts := watch.ListOptions{List: opts}
	if !sel.empty() {
		lopts.Filter = sel.filter(r)
		lopts.Index = append(sel.indexSets(), sel.fieldIndexSets(r)...)
	}
	res, err := r.Cache.List(ctx, prefix, lopts)
	if err != nil {
		return nil, registry.StorageError(err)
	}
	p := &page{entries: res.Entries}
	p.meta.ResourceVersion = strconv.FormatInt(res.Revision, 10)
	if res.Remaining > 0 && len(p.entries) > 0 {
		last := p.entries[len(p.entries)-1].KV.Key
		p.meta.Continue = resourceversion.EncodeContinue(
			resourceversion.ContinueAfter(res.Revision, strings.TrimPrefix(last, prefix)))
		if lopts.Filter == nil {
			left := res.Remaining
			p.meta.RemainingItemCount = &left
		}
	}
	return p, nil
}

// listAll reads every matching object of a collection at the current
// revision.
func (h *handler) listAll(ctx context.Context, namespace string, sel selectors) ([]meta.Object, int64, error) {
	p, err := h.listPage(ctx, namespace, sel, resourceversion.List{Semantics: resourceversion.MostRecent})
	if err != nil {
		return nil, 0, err
	}
	list, err := p.list(h.r)
	if err != nil {
		return nil, 0, err
	}
	rev, _ := strconv.ParseInt(list.ResourceVersion, 10, 64)
	return list.Items, rev, nil
}
