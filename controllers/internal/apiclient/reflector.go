package apiclient

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Handler receives the changes a Reflector observes: ADDED, MODIFIED or
// DELETED and the object (for a deletion found by a re-list, only its
// name, namespace and uid are known).
type Handler func(typ string, obj *Object)

// Reflector mirrors one collection: it lists it, then watches from the
// list's resourceVersion, and on a watch that ends re-watches from the
// last resourceVersion seen, or re-lists (delivering the differences)
// when that is too old. Every change reaches the handler, in order.
type Reflector struct {
	c       *Client
	path    string
	handler Handler

	mu     sync.Mutex
	known  map[string]known // by namespace/name
	synced chan struct{}
	// watched is the resourceVersion the watch has delivered up to.
	watched int64
}

// known is what a Reflector keeps of each object: enough to tell changes
// apart and to report a deletion.
type known struct {
	uid string
	rv  int64
}

// NewReflector returns a Reflector of the collection at path.
func (c *Client) NewReflector(path string, h Handler) *Reflector {
	return &Reflector{c: c, path: path, handler: h, known: map[string]known{}, synced: make(chan struct{})}
}

// Synced is closed once the first list has been delivered.
func (r *Reflector) Synced() <-chan struct{} { return r.synced }

// Run mirrors the collection until ctx is done. Errors other than an
// expired resourceVersion are retried after a short pause.
func (r *Reflector) Run(ctx context.Context) {
	rv := ""
	for ctx.Err() == nil {
		if rv == "" {
			var err error
			if rv, err = r.relist(ctx); err != nil {
				pause(ctx, time.Second)
				continue
			}
		}
		err := r.c.Watch(ctx, r.path, rv, func(ev Event) error {
			if ev.Object.Metadata.ResourceVersion != "" {
				rv = ev.Object.Metadata.ResourceVersion
				r.mu.Lock()
				r.watched = max(r.watched, ResourceVersionOf(rv))
				r.mu.Unlock()
			}
			r.deliver(ev)
			return nil
		})
		switch {
		case ctx.Err() != nil:
			return
		case status.IsGone(err) || status.IsExpired(err):
			rv = ""
		case err != nil:
			pause(ctx, 100*time.Millisecond)
		}
	}
}

func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func key(o *Object) string { return o.Metadata.Namespace + "/" + o.Metadata.Name }

// shareKey points o's namespace and name at their bytes in k, its key:
// the Reflector keeps k for as long as the object lives, and so do
// handlers that mirror objects, so the decoded copies are let go rather
// than kept twice.
func shareKey(o *Object, k string) {
	ns := len(o.Metadata.Namespace)
	o.Metadata.Namespace, o.Metadata.Name = k[:ns], k[ns+1:]
}

// Refresh brings the mirror up to date with a consistent list, while the
// watch goes on: the handler sees what the watch has not delivered yet.
func (r *Reflector) Refresh(ctx context.Context) error {
	_, err := r.relist(ctx)
	return err
}

// relist lists the collection and delivers what changed since the last
// known state: additions, updates and deletions. States older than the
// known ones (a watch may have delivered newer) are skipped.
func (r *Reflector) relist(ctx context.Context) (string, error) {
	items, rv, err := r.c.List(ctx, r.path, nil)
	if err != nil {
		return "", err
	}
	listRV := ResourceVersionOf(rv)
	seen := make(map[string]bool, len(items))
	for i := range items {
		obj := &items[i]
		seen[key(obj)] = true
		r.mu.Lock()
		// Once the watch is past the list, an object it does not know
		// was deleted after the list: do not bring it back.
		_, ok := r.known[key(obj)]
		stale := !ok && r.watched >= listRV
		r.mu.Unlock()
		if !stale {
			r.deliver(Event{Type: "ADDED", Object: *obj})
		}
	}
	r.mu.Lock()
	var gone []Object
	for k, o := range r.known {
		if !seen[k] && o.rv <= listRV {
			ns, name, _ := strings.Cut(k, "/")
			gone = append(gone, Object{Metadata: meta.ObjectMeta{Namespace: ns, Name: name, UID: o.uid}})
		}
	}
	r.mu.Unlock()
	for _, o := range gone {
		r.deliver(Event{Type: "DELETED", Object: o})
	}
	select {
	case <-r.synced:
	default:
		close(r.synced)
	}
	return rv, nil
}

// deliver updates the known state and calls the handler. An ADDED event
// of a known object is an update; a MODIFIED of an unknown one an add.
func (r *Reflector) deliver(ev Event) {
	if ev.Type != "ADDED" && ev.Type != "MODIFIED" && ev.Type != "DELETED" {
		return
	}
	obj := &ev.Object
	k := key(obj)
	shareKey(obj, k)
	rv := ResourceVersionOf(obj.Metadata.ResourceVersion)
	r.mu.Lock()
	old, ok := r.known[k]
	if ok && ev.Type != "DELETED" && rv < old.rv {
		r.mu.Unlock()
		return // older than what is known
	}
	if ev.Type == "DELETED" {
		delete(r.known, k)
	} else {
		r.known[k] = known{uid: obj.Metadata.UID, rv: rv}
	}
	r.mu.Unlock()
	switch {
	case ev.Type == "DELETED":
		r.handler("DELETED", obj)
	case !ok:
		r.handler("ADDED", obj)
	case old.rv != rv:
		r.handler("MODIFIED", obj)
	}
}
