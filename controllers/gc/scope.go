package gc

import (
	"fmt"

	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
)

// reasonInvalidNamespace is the reason of the Warning Event kube's
// garbage collector records on an object naming as its owner an object
// in another namespace.
const reasonInvalidNamespace = "OwnerRefInvalidNamespace"

// reportInvalidNamespaces records the Warning Event kube's garbage
// collector records on every object that names as its owner an object
// the graph holds in another namespace (a namespaced owner can own only
// objects of its own namespace): for n's references added since old
// (all of them when n is new to the graph), and, when n is new, for the
// references to n of the dependents the graph holds already.
func (c *Collector) reportInvalidNamespaces(n, old *node) {
	c.reportOwners(n, old)
	if old != nil {
		return
	}
	for _, d := range c.graph.dependentsOf(n.uid) {
		if r, ok := d.refTo(n.uid); ok && d != n && outOfScope(n, d) {
			c.reportInvalidOwner(d, r)
		}
	}
}

// reportOwners looks at n's references added since old, in order, until
// one names an owner it cannot be the object the graph holds under that
// uid, as kube's collector does: an owner in another namespace is
// reported, and one of another kind or name ends the look too.
func (c *Collector) reportOwners(n, old *node) {
	for _, r := range n.ownerRefs() {
		if old != nil {
			if _, had := old.refTo(uidOf(r.UID)); had {
				continue
			}
		}
		o := c.graph.get(uidOf(r.UID))
		switch {
		case o == nil:
			continue // not seen (yet): reported once it is, if it must be
		case outOfScope(o, n):
			c.reportInvalidOwner(n, r)
			return
		case r.APIVersion != o.res.APIVersion() || r.Kind != o.res.Kind || r.Name != o.name:
			return
		}
	}
}

// outOfScope reports whether owner o, as the graph holds it, cannot own
// dependent d: it is namespaced and d is not in its namespace.
func outOfScope(o, d *node) bool {
	return o.res.Namespaced && o.namespace != d.namespace
}

// reportInvalidOwner records the Warning on dependent d about its
// reference r, worded as kube's collector words it: the owner, looked
// for in d's namespace, is not there.
func (c *Collector) reportInvalidOwner(d *node, r meta.OwnerReference) {
	ref := corev1.ObjectReference{Kind: d.res.Kind, APIVersion: d.res.APIVersion(), Namespace: d.namespace, Name: d.name, UID: c.graph.text(d.uid)}
	c.events.warn(ref, reasonInvalidNamespace, fmt.Sprintf("ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q",
		r.APIVersion, r.Kind, d.namespace, r.Name, r.UID, d.namespace))
}
