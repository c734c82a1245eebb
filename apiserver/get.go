package apiserver

import (
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
)

// get serves GET on an object or its status.
func (s *Server) get(req *request) {
	opts, err := resourceversion.ParseGet(req.r.URL.Query())
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	out, err := s.negotiateRead(req, false, false)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	r := req.res
	ctx := req.r.Context()
	resp, err := r.store.Get(ctx, r.key(req.namespace, req.name), storageGetOptions)
	if err != nil {
		s.writeError(req.w, req.r, storageError(err))
		return
	}
	if opts.Semantics == resourceversion.NotOlderThan && resp.Revision < opts.Revision {
		s.writeError(req.w, req.r, resourceversion.TooLargeResourceVersion(resp.Revision, opts.Revision))
		return
	}
	if resp.KV == nil {
		s.writeError(req.w, req.r, status.NotFound(r.gr, req.name))
		return
	}
	if out.as == "" && out.ser.MediaType() == codec.MediaTypeJSON {
		s.writeRawObject(req, resp.KV)
		return
	}
	obj, err := r.decode(resp.KV)
	if err != nil {
		s.writeError(req.w, req.r, status.InternalError(err))
		return
	}
	s.writeRead(req, out, obj)
}
