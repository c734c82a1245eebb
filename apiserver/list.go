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
)

// list serves GET on a collection.
func (s *Server) list(req *request) {
	opts, err := resourceversion.ParseList(req.r.URL.Query())
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	sel, err := parseSelectors(req)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	out, err := s.negotiateRead(req, true, false)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	p, err := s.listPage(req.r.Context(), req.res, req.namespace, sel, opts)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	if out.as == "" && out.ser.MediaType() == codec.MediaTypeJSON {
		s.writeRawList(req, p)
		return
	}
	list, err := p.list(req.res)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	s.writeRead(req, out, list)
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

// listPage reads one page (or all) of a collection as the options ask.
// With a limit, it keeps reading until the page is full of matching items
// or the collection is exhausted, all at one revision, so the pages of one
// list form a consistent snapshot. Values are decoded only when selectors
// need to look into them.
func (s *Server) listPage(ctx context.Context, r *resource, namespace string, sel selectors, opts resourceversion.List) (*page, error) {
	prefix := r.listPrefix(namespace)
	var rev int64
	var after string
	switch opts.Semantics {
	case resourceversion.Continuation:
		rev, after = opts.Continue.Revision, continueAfter(prefix, opts.Continue.StartKey)
	case resourceversion.Exact:
		rev = opts.Revision
	}
	p := &page{}
	filter := !sel.empty()
	if filter {
		p.objs = []meta.Object{}
	}
	for {
		resp, err := r.store.List(ctx, prefix, storage.ListOptions{Revision: rev, After: after, Limit: opts.Limit})
		if err != nil {
			return nil, listStorageError(err, opts)
		}
		if rev == 0 {
			rev = resp.Revision
			if opts.Semantics == resourceversion.NotOlderThan && rev < opts.Revision {
				return nil, resourceversion.TooLargeResourceVersion(rev, opts.Revision)
			}
		}
		if !filter && opts.Limit <= 0 {
			p.kvs = resp.KVs
		}
		for i, kv := range resp.KVs {
			if filter {
				obj, err := r.decode(kv)
				if err != nil {
					return nil, status.InternalError(err)
				}
				if !sel.matches(r, obj) {
					continue
				}
				p.objs = append(p.objs, obj)
			}
			if filter || opts.Limit > 0 {
				p.kvs = append(p.kvs, kv)
			}
			if opts.Limit > 0 && int64(len(p.kvs)) == opts.Limit {
				left := resp.Remaining + int64(len(resp.KVs)-i-1)
				if left > 0 {
					p.meta.Continue = resourceversion.EncodeContinue(
						resourceversion.ContinueAfter(rev, strings.TrimPrefix(kv.Key, prefix)))
					if !filter {
						p.meta.RemainingItemCount = &left
					}
				}
				p.meta.ResourceVersion = strconv.FormatInt(rev, 10)
				return p, nil
			}
		}
		if resp.Remaining == 0 || len(resp.KVs) == 0 {
			break
		}
		after = resp.KVs[len(resp.KVs)-1].Key
	}
	p.meta.ResourceVersion = strconv.FormatInt(rev, 10)
	return p, nil
}

// continueAfter turns a token's inclusive start key into the exclusive
// storage key to list after. Tokens kapi issues start just past a key
// (lastKey+"\x00"), so the key itself is where to resume after.
func continueAfter(prefix, startKey string) string {
	if startKey == "" || startKey == "/" {
		return ""
	}
	if strings.HasSuffix(startKey, "\x00") {
		return prefix + strings.TrimSuffix(startKey, "\x00")
	}
	// An inclusive start: resume after the greatest key below it.
	k := prefix + startKey
	return k[:len(k)-1] + string(k[len(k)-1]-1) + "\xff"
}

// listStorageError turns a compacted continuation into 410 Expired with a
// fresh token that resumes, inconsistently, at the current revision, as
// kube-apiserver does.
func listStorageError(err error, opts resourceversion.List) error {
	if !storage.IsCompacted(err) {
		return storageError(err)
	}
	if opts.Semantics == resourceversion.Continuation {
		return resourceversion.ContinueExpired(*opts.Continue)
	}
	return status.Expired("The resourceVersion for the provided list is too old.")
}

// listAll reads every matching object of a collection at the current
// revision.
func (s *Server) listAll(ctx context.Context, r *resource, namespace string, sel selectors) ([]meta.Object, int64, error) {
	p, err := s.listPage(ctx, r, namespace, sel, resourceversion.List{Semantics: resourceversion.MostRecent})
	if err != nil {
		return nil, 0, err
	}
	list, err := p.list(r)
	if err != nil {
		return nil, 0, err
	}
	rev, _ := strconv.ParseInt(list.ResourceVersion, 10, 64)
	return list.Items, rev, nil
}
