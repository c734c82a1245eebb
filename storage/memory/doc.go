// Package memory is kapi's embedded, in-memory [storage.Interface]: the
// default store, with etcd v3's model (one store-wide revision, MVCC reads
// at past revisions, compare-and-swap writes, watches from a revision,
// compaction).
//
// # Revisions
//
// An empty store is at revision 1, like etcd; every successful put or
// delete advances the revision by one, so the first write gets revision 2.
// A key's CreateRevision is the revision that created it and its
// ModRevision the revision of its last write. A failed compare-and-swap
// changes nothing.
//
// # Design
//
// The store's state is an immutable value published through an atomic
// pointer: the revision, the compacted revision, the current keys and a
// view of the event log. Reads load it once and never lock, so a read is
// a consistent snapshot. Writes are serialized by one mutex, held only to
// build and publish the next state (about a microsecond).
//
// The current keys live in a copy-on-write B-tree (degree 16, subtree
// sizes in every node): a write copies the nodes on its path, about three
// for ten thousand keys, and leaves the published tree untouched. Range
// counts (List's Remaining) cost O(log n).
//
// The event log keeps one event per revision (the new value and the value
// it replaced) for the last HistoryWindow revisions, in fixed-size chunks
// addressed by revision. Older revisions are compacted automatically, and
// so are the oldest ones whenever the replaced values the log keeps exceed
// HistoryBytes, and every CompactionInterval (5 minutes, as kube-apiserver
// has etcd compacted) the store compacts through the revision of the tick
// before, so that an idle store does not keep replaced values forever;
// [Store.Compact] drops them earlier. Old revisions cost no tree copies: a
// read at a past revision takes the current tree and undoes the events
// after that revision. Get walks the events after the revision until it
// finds the key's first change, whose previous value is the answer; List
// collects the keys of its range that changed since, each with its value
// at the revision, and merges them with the current tree in key order.
// Such reads cost O(revisions since) on top of a current read, bounded by
// the window.
//
// Watches never block writers. A write only publishes the new state and
// wakes waiting watchers; each watch has its own goroutine that reads the
// shared log from its own cursor, filters by prefix, and sends batches of
// at most 256 events to its channel (WatchBuffer responses deep). A slow
// consumer only delays its own goroutine. When it falls so far behind
// that the events it still owes leave the history window, it receives a
// last response with an ErrCompacted [storage.Error] and its channel is
// closed, so it must list and watch again; until then it loses nothing.
// Memory per watch is bounded by its channel's contents.
//
// # Sharing
//
// Values are copied when written, unless PutOptions.ValueOwned hands
// them over. The KeyValues and Events the store returns are shared with
// the store and with other callers: treat them, and their Value slices,
// as read-only.
//
// The store implements [storage.SharedKeeper]: a value's shared part
// (PutOptions.Shared) is kept with it and returned with it wherever the
// value is read, so that writers can keep bytes common to many values
// once.
package memory
