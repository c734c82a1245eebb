package gc

import (
	"slices"
	"sync"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/meta"
)

// node is what the collector knows of one object. The collector keeps one
// for every object of every kind it mirrors, for as long as the object
// lives, so it is kept small: the resourceVersion as the number the
// server's always is (which saves a string of its own per object), the
// namespace and name as the Reflector hands them over (sharing the bytes
// of its key of the object).
type node struct {
	uid             string
	res             *apiclient.Resource
	namespace, name string
	rv              int64
	owners          []meta.OwnerReference
	deleting        bool // deletionTimestamp set
	orphan          bool // the orphan finalizer is set
	foreground      bool // the foregroundDeletion finalizer is set
}

func newNode(res *apiclient.Resource, obj *apiclient.Object) *node {
	m := &obj.Metadata
	return &node{
		uid: m.UID, res: res, namespace: m.Namespace, name: m.Name, rv: apiclient.ResourceVersionOf(m.ResourceVersion),
		owners: m.OwnerReferences, deleting: m.DeletionTimestamp != nil,
		orphan:     slices.Contains(m.Finalizers, meta.FinalizerOrphanDependents),
		foreground: slices.Contains(m.Finalizers, meta.FinalizerDeleteDependents),
	}
}

// path is the node's object path.
func (n *node) path() string { return n.res.ObjectPath(n.namespace, n.name) }

// waitingForDependents reports whether the node is being deleted in the
// foreground: it goes once its blocking dependents are gone.
func (n *node) waitingForDependents() bool { return n.deleting && n.foreground }

// refTo returns the node's reference to owner uid.
func (n *node) refTo(uid string) (meta.OwnerReference, bool) {
	for _, r := range n.owners {
		if r.UID == uid {
			return r, true
		}
	}
	return meta.OwnerReference{}, false
}

// blocks reports whether the node's reference to owner uid blocks the
// owner's foreground deletion.
func (n *node) blocks(uid string) bool {
	r, ok := n.refTo(uid)
	return ok && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion
}

// maxAbsent bounds the memory of owners seen deleted.
const maxAbsent = 100_000

// graph holds every object the collector watches, indexed by uid and by
// owner. Nodes are replaced, never changed, so a node read under the lock
// may be used after it.
type graph struct {
	mu         sync.Mutex
	nodes      map[string]*node
	dependents map[string]map[string]struct{} // owner uid → dependent uids
	absent     map[string]struct{}            // uids seen deleted
}

func newGraph() *graph {
	return &graph{nodes: map[string]*node{}, dependents: map[string]map[string]struct{}{}, absent: map[string]struct{}{}}
}

// put stores n and returns the node it replaces, if any.
func (g *graph) put(n *node) *node {
	g.mu.Lock()
	defer g.mu.Unlock()
	old := g.nodes[n.uid]
	g.nodes[n.uid] = n
	delete(g.absent, n.uid)
	if old != nil {
		g.unlink(old)
	}
	for _, r := range n.owners {
		deps := g.dependents[r.UID]
		if deps == nil {
			deps = map[string]struct{}{}
			g.dependents[r.UID] = deps
		}
		deps[n.uid] = struct{}{}
	}
	return old
}

func (g *graph) unlink(n *node) {
	for _, r := range n.owners {
		if deps := g.dependents[r.UID]; deps != nil {
			delete(deps, n.uid)
			if len(deps) == 0 {
				delete(g.dependents, r.UID)
			}
		}
	}
}

// remove forgets the node of uid, remembers that uid is gone, and
// returns the node.
func (g *graph) remove(uid string) *node {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.nodes[uid]
	if n != nil {
		g.unlink(n)
		delete(g.nodes, uid)
	}
	if len(g.absent) >= maxAbsent {
		clear(g.absent)
	}
	g.absent[uid] = struct{}{}
	return n
}

func (g *graph) get(uid string) *node {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.nodes[uid]
}

func (g *graph) isAbsent(uid string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.absent[uid]
	return ok
}

// dependentsOf returns the nodes that reference owner uid.
func (g *graph) dependentsOf(uid string) []*node {
	g.mu.Lock()
	defer g.mu.Unlock()
	deps := g.dependents[uid]
	out := make([]*node, 0, len(deps))
	for d := range deps {
		if n := g.nodes[d]; n != nil {
			out = append(out, n)
		}
	}
	return out
}

func (g *graph) hasDependents(uid string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.dependents[uid]) > 0
}

// all returns every node.
func (g *graph) all() []*node {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]*node, 0, len(g.nodes))
	for _, n := range g.nodes {
		out = append(out, n)
	}
	return out
}
