package handlers

import (
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/meta"
)

// A watch asking for Tables gets what kube-apiserver's watch sends:
//
//   - every event's object is a Table of one row, the column definitions
//     in the stream's first event only (null after), so a stream's first
//     event is rendered for it alone and the later ones are shared with
//     the other streams of the same rendering;
//   - a BOOKMARK is a Table too, whose row is that of an object of the
//     kind with nothing but the bookmark's metadata: a Name cell of ""
//     and empty cells. Its row object follows includeObject, but the
//     bookmark that ends the initial events always carries its metadata,
//     so that a client sees the k8s.io/initial-events-end annotation.
//
// (client-go's reflector does not take Tables: it skips every event of a
// Table stream, bookmarks included, and so never sees the initial events
// end, as with kube-apiserver.)

// headersSent reports whether the stream's events may share their
// encoding with other streams: always, but for a Table stream before its
// first event.
func (ws *watchStream) headersSent() bool { return ws.out.As != tables.AsTable || ws.out.noHeaders }

// renderBookmark renders a BOOKMARK's object as the client asked.
func (ws *watchStream) renderBookmark(b *BookmarkObject) (any, error) {
	if ws.out.As != tables.AsTable {
		return ws.out.Render(ws.r, b)
	}
	obj := ws.r.NewObject()
	*obj.GetObjectMeta() = b.ObjectMeta
	t, err := ws.out.table(ws.r, obj)
	if err != nil {
		return nil, err
	}
	row := &t.Rows[0]
	switch {
	case ws.out.Include == tables.IncludeObjectFull:
		row.Object = b // the bookmark as sent without a Table: no empty spec
	case b.Annotations[meta.InitialEventsAnnotation] != "":
		row.Object = ws.out.partial(b)
	}
	return t, nil
}
