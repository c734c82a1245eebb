package apiserver

import (
	"context"
	"strconv"
	"strings"

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
	list, err := s.listPage(req.r.Context(), req.res, req.namespace, sel, opts)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	s.writeRead(req, out, list)
}

// listPage reads one page (or all) of a collection as the options ask.
// With a limit, it keeps reading until the page is full of matching items
// or the collection is exhausted, all at one revision, so the pages of one
// list form a consistent snapshot.
func (s *Server) listPage(ctx context.Context, r *resource, namespace string, sel selectors, opts resourceversion.List) (*meta.List, error) {
	prefix := r.listPrefix(namespace)
	var rev int64
	var after string
	switch opts.Semantics {
	case resourceversion.Continuation:
		rev, after = opts.Continue.Revision, continueAfter(prefix, opts.Continue.StartKey)
	case resourceversion.Exact:
		rev = opts.Revision
	}
	list := &meta.List{TypeMeta: meta.TypeMeta{Kind: r.listKind, APIVersion: r.apiVersion}, Items: []meta.Object{}}
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
		for i, kv := range resp.KVs {
			obj, err := r.decode(kv)
			if err != nil {
				return nil, status.InternalError(err)
			}
			if !sel.matches(r, obj) {
				continue
			}
			list.Items = append(list.Items, obj)
			if opts.Limit > 0 && int64(len(list.Items)) == opts.Limit {
				left := resp.Remaining + int64(len(resp.KVs)-i-1)
				if left > 0 {
					list.Continue = resourceversion.EncodeContinue(
						resourceversion.ContinueAfter(rev, strings.TrimPrefix(kv.Key, prefix)))
					if sel.empty() {
						list.RemainingItemCount = &left
					}
				}
				list.ResourceVersion = strconv.FormatInt(rev, 10)
				return list, nil
			}
		}
		if resp.Remaining == 0 || len(resp.KVs) == 0 {
			break
		}
		after = resp.KVs[len(resp.KVs)-1].Key
	}
	list.ResourceVersion = strconv.FormatInt(rev, 10)
	return list, nil
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
	list, err := s.listPage(ctx, r, namespace, sel, resourceversion.List{Semantics: resourceversion.MostRecent})
	if err != nil {
		return nil, 0, err
	}
	rev, _ := strconv.ParseInt(list.ResourceVersion, 10, 64)
	return list.Items, rev, nil
}
