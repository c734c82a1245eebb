package apiclient

import (
	"context"
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
//
// A Reflector tells objects apart by uid: an object deleted and created
// again under its name is two objects, and a re-list that finds the new
// one delivers the old one's deletion before the new one's addition.
type Reflector struct {
	c       *Client
	path    string
	handler Handler

	// mu serializes deliveries: the handler is called with it held, so
	// that what known says and what the handler saw agree.
	mu     sync.Mutex
	known  Known
	own    knownMap // the objects known, when no Known was given
	synced chan struct{}
	// watched is the resourceVersion the watch has delivered up to.
	watched int64
}

// Known is what a Reflector knows of the objects it has delivered: a
// handler that keeps a mirror of its own (the garbage collector's graph)
// gives it to the Reflector, which then keeps no second copy. After the
// handler has seen an ADDED or MODIFIED object, Version must return the
// object's resourceVersion; after a DELETED one, report it unknown. The
// Reflector calls Known's methods and the handler one at a time.
type Known interface {
	// Version returns the resourceVersion of the object of uid as last
	// delivered, and false when that object is not known.
	Version(uid string) (int64, bool)
	// Each calls fn with every known object.
	Each(fn func(uid string, rv int64, namespace, name string))
}

// knownMap is the Known a Reflector keeps when given none: what it needs
// of each object, by uid.
type knownMap map[string]knownObject

type knownObject struct {
	rv              int64
	namespace, name string
}

func (m knownMap) Version(uid string) (int64, bool) {
	o, ok := m[uid]
	return o.rv, ok
}

func (m knownMap) Each(fn func(uid string, rv int64, namespace, name string)) {
	for uid, o := range m {
		fn(uid, o.rv, o.namespace, o.name)
	}
}

// NewReflector returns a Reflector of the collection at path that calls h
// with every change. known, when not nil, is where h keeps what it has
// seen (see [Known]); nil has the Reflector keep it.
func (c *Client) NewReflector(path string, h Handler, known Known) *Reflector {
	r := &Reflector{c: c, path: path, handler: h, known: known, synced: make(chan struct{})}
	if known == nil {
		r.own = knownMap{}
		r.known = r.own
	}
	return r
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

// Refresh brings the mirror up to date with a consistent list, while the
// watch goes on: the handler sees what the watch has not delivered yet.
func (r *Reflector) Refresh(ctx context.Context) error {
	_, err := r.relist(ctx)
	return err
}

// relist lists the collection and delivers what changed since the last
// known state: deletions first, then additions and updates. States older
// than the known ones (a watch may have delivered newer) are skipped.
func (r *Reflector) relist(ctx context.Context) (string, error) {
	items, rv, err := r.c.List(ctx, r.path, nil)
	if err != nil {
		return "", err
	}
	listRV := ResourceVersionOf(rv)
	seen := make(map[string]bool, len(items))
	for i := range items {
		seen[items[i].Metadata.UID] = true
	}
	r.mu.Lock()
	var gone []Object
	r.known.Each(func(uid string, rv int64, namespace, name string) {
		if !seen[uid] && rv <= listRV {
			gone = append(gone, Object{Metadata: meta.ObjectMeta{Namespace: namespace, Name: name, UID: uid}})
		}
	})
	r.mu.Unlock()
	for _, o := range gone {
		r.deliver(Event{Type: "DELETED", Object: o})
	}
	for i := range items {
		obj := &items[i]
		r.mu.Lock()
		// Once the watch is past the list, an object it does not know
		// was deleted after the list: do not bring it back.
		_, ok := r.known.Version(obj.Metadata.UID)
		stale := !ok && r.watched >= listRV
		r.mu.Unlock()
		if !stale {
			r.deliver(Event{Type: "ADDED", Object: *obj})
		}
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
	uid := obj.Metadata.UID
	rv := ResourceVersionOf(obj.Metadata.ResourceVersion)
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.known.Version(uid)
	if ok && ev.Type != "DELETED" && rv < old {
		return // older than what is known
	}
	if r.own != nil {
		if ev.Type == "DELETED" {
			delete(r.own, uid)
		} else {
			r.own[uid] = knownObject{rv: rv, namespace: obj.Metadata.Namespace, name: obj.Metadata.Name}
		}
	}
	switch {
	case ev.Type == "DELETED":
		r.handler("DELETED", obj)
	case !ok:
		r.handler("ADDED", obj)
	case old != rv:
		r.handler("MODIFIED", obj)
	}
}
