// Package btree is a persistent, copy-on-write B-tree of items ordered by a
// string key, with the size of every subtree so that counting the items of
// a key range costs O(log n). It serves the memory store's current keys
// (storage/memory) and the watch cache's mirror (watch).
//
// A tree is a *[Node]; nil and new(Node[T]) are empty trees. The items'
// type T is usually a pointer, and an [Ops] made by [NewOps] with the
// function giving an item's key performs every operation:
//
//	var ops = btree.NewOps(func(kv *KeyValue) string { return kv.Key })
//
//	root, _, _ = ops.Put(root, kv, gen)
//	kv, ok := ops.Get(root, "/a")
//	n := ops.CountRange(root, "/a/", false, "/a0")
//	page := ops.AppendFrom(nil, root, "/a/", false, 500)
//
// # Generations
//
// Every change ([Ops.Put], [Ops.Delete]) is made with a generation, a
// number stamped on every node the change creates. A change edits in place
// the nodes that carry its generation and copies any other node on its
// path first, stamping the copy. So:
//
//   - A tree a reader may hold (a published tree) never changes, as long
//     as every later change uses a generation none of its nodes carries:
//     use a new generation, greater than all earlier ones, for each
//     change, or at least for each change whose result is published.
//   - Several changes with the same generation build on each other in
//     place, copying each node once: a tree built from scratch with one
//     generation, for instance from a sorted list, costs no copies. Only
//     its final result may be published.
//
// Generation 0 is the zero Node's: use generations from 1 on, so that the
// empty tree new(Node[T]) is never changed in place.
//
// A change copies the O(log n) nodes on its path: about three nodes, of
// up to 31 items each, in a tree of ten thousand items (the degree is 16).
// Reads take no locks: a published tree can be read by any number of
// goroutines while one writer derives new trees from it. Changes to one
// tree must not run concurrently.
//
// Trees compare keys with Go's string ordering (byte-wise). The key
// function is called on every comparison, so it should be a field load.
package btree
