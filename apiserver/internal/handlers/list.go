package handlers

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
func (h *Handler) list(req *Request) {
	opts, err := resourceversion.ParseList(requestinfo.Query(req.Request))
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
	p, err := h.ListPage(req.Request.Context(), req.Namespace, sel, opts)
	if err != nil {
		h.fail(req, err)
		return
	}
	if err := h.Resource.ConvertPage(p.Entries); err != nil {
		h.fail(req, err)
		return
	}
	if out.Serializer.MediaType() == codec.MediaTypeJSON {
		switch out.As {
		case tables.TransformNone:
			h.WriteRawList(req, p)
			return
		case tables.AsTable, tables.AsPartialList:
			h.writeRowList(req, out, p)
			return
		}
	}
	if lw, ok := out.Serializer.(codec.ListWriter); ok {
		switch out.As {
		case tables.TransformNone:
			h.writeEncodedList(req, out.Serializer, lw, p)
			return
		case tables.AsPartialList:
			h.writePartialList(req, out, lw, p)
			return
		}
	}
	list, err := p.List(h.Resource)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeRead(req, out, list)
}

// page is one page of a list: the cache's entries, in key order.
type page struct {
	meta    meta.ListMeta
	Entries []*watch.Entry
}

// List returns the page as a List of freshly decoded objects.
func (p *page) List(r *registry.Resource) (*meta.List, error) {
	l := &meta.List{TypeMeta: meta.TypeMeta{Kind: r.ListKind, APIVersion: r.APIVersion}, ListMeta: p.meta,
		Items: make([]meta.Object, len(p.Entries))}
	for i, e := range p.Entries {
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

// ListPage reads one page (or all) of a collection from the watch cache as
// the options ask. Values are decoded only when selectors need to look
// into them.
func (h *Handler) ListPage(ctx context.Context, namespace string, sel Selectors, opts resourceversion.List) (*page, error) {
	r := h.Resource
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
	p := &page{Entries: res.Entries}
	p.meta.ResourceVersion = strconv.FormatInt(res.Revision, 10)
	if res.Remaining > 0 && len(p.Entries) > 0 {
		last := p.Entries[len(p.Entries)-1].KV.Key
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
func (h *Handler) listAll(ctx context.Context, namespace string, sel Selectors) ([]meta.Object, int64, error) {
	p, err := h.ListPage(ctx, namespace, sel, resourceversion.List{Semantics: resourceversion.MostRecent})
	if err != nil {
		return nil, 0, err
	}
	list, err := p.List(h.Resource)
	if err != nil {
		return nil, 0, err
	}
	rev, _ := strconv.ParseInt(list.ResourceVersion, 10, 64)
	return list.Items, rev, nil
}
