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
		s.fail(req, err)
		return
	}
	out, err := s.negotiateRead(req, false, false)
	if err != nil {
		s.fail(req, err)
		return
	}
	r := req.res
	ctx := req.r.Context()
	resp, err := r.cache.Get(ctx, r.key(req.namespace, req.name), opts)
	if err != nil {
		s.fail(req, storageError(err))
		return
	}
	if resp.Entry == nil {
		s.fail(req, status.NotFound(r.gr, req.name))
		return
	}
	if out.ser.MediaType() == codec.MediaTypeJSON {
		switch out.as {
		case transformNone:
			s.writeRawObject(req, resp.Entry.KV)
			return
		case asTable, asPartial:
			s.writeRowObject(req, out, resp.Entry)
			return
		}
	}
	obj, err := object(resp.Entry)
	if err != nil {
		s.fail(req, err)
		return
	}
	s.writeRead(req, out, obj)
}
