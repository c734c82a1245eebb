package gc

import (
	"slices"
	"sync"
	"unsafe"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/meta"
)

// node is what the collector knows of one object. The collector keeps one
// for every object of every kind it mirrors, for as long as the object
// lives, so it is kept small: the resourceVersion as the number the
// server's always is (which saves a string of its own per object), the
// uid as 16 bytes (see uid), the namespace as the one string the graph
// keeps for it. The graph's nodes
// are also what the mirrors' Reflectors know of the objects (see
// graph.knownOf), which then keep no copy of their own.
type node struct {
	uid             uid
	res             *apiclient.Resource
	namespace, name string
	rv              int64
	// owners and nowners are the object's ownerReferences (see
	// ownerRefs): a pointer and a length rather than a slice, whose
	// capacity no node needs, so that a node fits 80 bytes.
	owners     *meta.OwnerReference
	nowners    uint32
	deleting   bool // deletionTimestamp set
	orphan     bool // the orphan finalizer is set
	foreground bool // the foregroundDeletion finalizer is set
}

func newNode(res *apiclient.Resource, obj *apiclient.Object) *node {
	m := &obj.Metadata
	return &node{
		uid: uidOf(m.UID), res: res, namespace: m.Namespace, name: m.Name, rv: apiclient.ResourceVersionOf(m.ResourceVersion),
		owners: unsafe.SliceData(m.OwnerReferences), nowners: uint32(len(m.OwnerReferences)), deleting: m.DeletionTimestamp != nil,
		orphan:     slices.Contains(m.Finalizers, meta.FinalizerOrphanDependents),
		foreground: slices.Contains(m.Finalizers, meta.FinalizerDeleteDependents),
	}
}

// ownerRefs returns the object's ownerReferences, which the caller must
// not change.
func (n *node) ownerRefs() []meta.OwnerReference { return unsafe.Slice(n.owners, n.nowners) }

// path is the node's object path.
func (n *node) path() string { return n.res.ObjectPath(n.namespace, n.name) }

// waitingForDependents reports whether the node is being deleted in the
// foreground: it goes once its blocking dependents are gone.
func (n *node) waitingForDependents() bool { return n.deleting && n.foreground }

// refTo returns the node's reference to owner u.
func (n *node) refTo(u uid) (meta.OwnerReference, bool) {
	for _, r := range n.ownerRefs() {
		if uidOf(r.UID) == u {
			return r, true
		}
	}
	return meta.OwnerReference{}, false
}

// blocks reports whether the node's reference to owner u blocks the
// owner's foreground deletion.
func (n *node) blocks(u uid) bool {
	r, ok := n.refTo(u)
	return ok && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion
}

// maxAbsent bounds the memory of owners seen deleted.
const maxAbsent = 100_000

// graph holds every object the collector watches, indexed by uid and by
// owner. Nodes are replaced, never changed, so a node read under the lock
// may be used after it.
type graph struct {
	mu         sync.Mutex
	nodes      map[uid]*node
	dependents map[uid]map[uid]struct{} // owner uid → dependent uids
	absent     map[uid]struct{}         // uids seen deleted
	// texts holds the text of the nodes' uids that are not UUIDs (see
	// uid), for as long as the graph holds their nodes.
	texts map[uid]string
	// namespaces holds one copy of each namespace's name, which the
	// nodes of its objects share.
	namespaces map[string]string
}

// maxNamespaces bounds the namespace names kept for sharing.
const maxNamespaces = 10_000

func newGraph() *graph {
	return &graph{nodes: map[uid]*node{}, dependents: map[uid]map[uid]struct{}{}, absent: map[uid]struct{}{},
		texts: map[uid]string{}, namespaces: map[string]string{}}
}

// put stores n, a node not yet shared whose uid's text is text, and
// returns the node it replaces, if any.
func (g *graph) put(n *node, text string) *node {
	g.mu.Lock()
	defer g.mu.Unlock()
	n.namespace = g.namespace(n.namespace)
	if !n.uid.parsed() {
		g.texts[n.uid] = text
	}
	old := g.nodes[n.uid]
	g.nodes[n.uid] = n
	delete(g.absent, n.uid)
	if old != nil {
		g.unlink(old)
	}
	for _, r := range n.ownerRefs() {
		o := uidOf(r.UID)
		deps := g.dependents[o]
		if deps == nil {
			deps = map[uid]struct{}{}
			g.dependents[o] = deps
		}
		deps[n.uid] = struct{}{}
	}
	return old
}

// text returns the text of the uid of a node: "" for a uid that is not a
// UUID whose node the graph no longer holds.
func (g *graph) text(u uid) string {
	if u.parsed() {
		return u.uuidText()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.texts[u]
}

// namespace returns the graph's copy of the namespace name ns. g.mu must
// be held.
func (g *graph) namespace(ns string) string {
	if ns == "" {
		return ""
	}
	if s, ok := g.namespaces[ns]; ok {
		return s
	}
	if len(g.namespaces) >= maxNamespaces {
		clear(g.namespaces)
	}
	g.namespaces[ns] = ns
	return ns
}

func (g *graph) unlink(n *node) {
	for _, r := range n.ownerRefs() {
		o := uidOf(r.UID)
		if deps := g.dependents[o]; deps != nil {
			delete(deps, n.uid)
			if len(deps) == 0 {
				delete(g.dependents, o)
			}
		}
	}
}

// remove forgets the node of u, remembers that u is gone, and returns the
// node.
func (g *graph) remove(u uid) *node {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.nodes[u]
	if n != nil {
		g.unlink(n)
		delete(g.nodes, u)
		delete(g.texts, u)
	}
	if len(g.absent) >= maxAbsent {
		clear(g.absent)
	}
	g.absent[u] = struct{}{}
	return n
}

func (g *graph) get(u uid) *node {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.nodes[u]
}

func (g *graph) isAbsent(u uid) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.absent[u]
	return ok
}

// dependentsOf returns the nodes that reference owner u.
func (g *graph) dependentsOf(u uid) []*node {
	g.mu.Lock()
	defer g.mu.Unlock()
	deps := g.dependents[u]
	out := make([]*node, 0, len(deps))
	for d := range deps {
		if n := g.nodes[d]; n != nil {
			out = append(out, n)
		}
	}
	return out
}

func (g *graph) hasDependents(u uid) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.dependents[u]) > 0
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

// knownOf returns what the Reflector of resource res knows: the graph's
// nodes of that resource, which the collector's handler keeps as the
// Reflector requires. A node another mirror of the same resource made
// (one of an earlier version, before discovery changed) is not known, so
// that the new mirror delivers every object again and the nodes take its
// resource.
func (g *graph) knownOf(res *apiclient.Resource) apiclient.Known {
	return known{g: g, res: res}
}

type known struct {
	g   *graph
	res *apiclient.Resource
}

func (k known) Version(text string) (int64, bool) {
	if n := k.g.get(uidOf(text)); n != nil && n.res == k.res {
		return n.rv, true
	}
	return 0, false
}

func (k known) Each(fn func(uid string, rv int64, namespace, name string)) {
	k.g.mu.Lock()
	var nodes []*node
	for _, n := range k.g.nodes {
		if n.res == k.res {
			nodes = append(nodes, n)
		}
	}
	k.g.mu.Unlock()
	for _, n := range nodes {
		fn(k.g.text(n.uid), n.rv, n.namespace, n.name)
	}
}
