package apiserver

import (
	"context"
	"strconv"
	"strings"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/watch"
)

// list serves GET on a collection.
func (h *handler) list(req *request) {
	opts, err := resourceversion.ParseList(req.r.URL.Query())
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
	if out.as == "" && out.ser.MediaType() == codec.MediaTypeJSON {
		h.writeRawList(req, p)
		return
	}
	list, err := p.list(h.r)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeRead(req, out, list)
}

// page is one page of a list: the stored values and, when selectors made
// decoding necessary, the decoded objects.
type page struct {
	meta meta.ListMeta
	kvs  []*storage.KeyValue
	objs []meta.Object // nil unless decoded
}

// list returns the page as a List of decoded objects.
func (p *page) list(r *resource) (*meta.List, error) {
	l := &meta.List{TypeMeta: meta.TypeMeta{Kind: r.listKind, APIVersion: r.apiVersion}, ListMeta: p.meta, Items: p.objs}
	if l.Items == nil {
		l.Items = make([]meta.Object, 0, len(p.kvs))
		for _, kv := range p.kvs {
			obj, err := r.decode(kv)
			if err != nil {
				return nil, status.InternalError(err)
			}
			l.Items = append(l.Items, obj)
		}
	}
	return l, nil
}

// listPage reads one page (or all) of a collection from the watch cache as
// the options ask. Values are decoded only when selectors need to look
// into them.
func (h *handler) listPage(ctx context.Context, namespace string, sel selectors, opts resourceversion.List) (*page, error) {
	r := h.r
	prefix := r.listPrefix(namespace)
	lopts := watch.ListOptions{List: opts}
	if !sel.empty() {
		lopts.Filter = sel.filter(r)
	}
	res, err := r.cache.List(ctx, prefix, lopts)
	if err != nil {
		return nil, storageError(err)
	}
	p := &page{kvs: make([]*storage.KeyValue, len(res.Entries))}
	p.meta.ResourceVersion = strconv.FormatInt(res.Revision, 10)
	for i, e := range res.Entries {
		p.kvs[i] = e.KV
	}
	if lopts.Filter != nil {
		p.objs = make([]meta.Object, len(res.Entries))
		for i, e := range res.Entries {
			if p.objs[i], err = object(e); err != nil {
				return nil, err
			}
		}
	}
	if res.Remaining > 0 && len(p.kvs) > 0 {
		last := p.kvs[len(p.kvs)-1].Key
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
