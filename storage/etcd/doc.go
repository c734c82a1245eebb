// Package etcd is a [storage.Interface] over an etcd v3 cluster, through
// the official client (go.etcd.io/etcd/client/v3).
//
// The storage model is etcd's, so the layer is thin: a storage key is an
// etcd key (under [Options.Prefix]), a value is stored as given, a
// KeyValue's CreateRevision and ModRevision are etcd's, and a revision is
// etcd's store-wide revision. Every operation is one etcd request:
//
//   - Get and List are ranges, linearizable, at the current revision or at
//     opts.Revision. List's Remaining is the range's Count minus the keys
//     returned; a continuation (After) starts the range at After+"\x00".
//   - OptimisticPut is a transaction: If(ModRevision(key) = expected)
//     Then(Put, Get keys-only) Else(Get). An expected revision of 0
//     matches only a missing key, so it creates. The keys-only Get gives
//     the written key's CreateRevision without sending the value back.
//   - OptimisticDelete is If(ModRevision(key) = expected) Then(Delete with
//     the previous value) Else(Get). An expected revision of 0 never
//     matches (etcd's ModRevision = 0 holds for a missing key, which would
//     "delete" nothing): it is answered with a plain Get.
//   - Watch is an etcd watch on the prefix from opts.Revision+1 with
//     previous values.
//   - Revision is a count-only range; Compact is etcd's Compact.
//
// # Compaction
//
// After [Store.Compact] at revision C (or an etcd compaction at C by
// anyone else, such as etcd's auto-compaction), reads at C and below fail
// with an ErrCompacted [storage.Error] whose Revision is C, as the
// storage contract says. etcd itself still serves reads at exactly C; to
// refuse them, a read at an explicit revision R is a read-only
// transaction that also ranges, count-only, over the key at R-1, which
// etcd refuses when R-1 < C. etcd errors do not carry the compacted
// revision: when a read fails as compacted, the store learns it from a
// short-lived watch at revision 1, which etcd answers with its compact
// revision.
//
// Watches follow the same contract (a watch from a revision below the
// compacted one fails), with one leniency where etcd is more permissive:
// a watch from C-1 starts and delivers the events at C if they are
// complete, and fails with ErrCompacted only when an event lacks the
// previous value it must carry (an update or a delete at C, whose
// previous value was compacted). A watch from C, or later, delivers
// complete events; one from C-2 or earlier is refused by etcd, and fails
// with ErrCompacted and etcd's compact revision. The same check catches
// an etcd compaction that overtakes a watch still catching up.
//
// # Errors
//
// Lost quorum, no leader, timeouts, connection failures, a closed client
// and etcd's "too many requests" and "database space exceeded" map to an
// ErrUnavailable [storage.Error] wrapping etcd's error. Every request but
// a watch is bounded by [Options.RequestTimeout] (the etcd client retries
// reads until its context ends, which, with no quorum, is never), and
// reaching it is ErrUnavailable too. A write, though, fails with
// ErrUnavailable only when etcd (or its client) refused it: no leader,
// too many requests, no space, an unhealthy member, no endpoint, a
// closed client. A write that timed out (the bound, etcd's own "request
// timed out") or lost its connection may have been applied, and fails
// with ErrTimeout. A read at a
// revision above the current one fails with ErrFutureRevision carrying the
// current revision. When the caller's context is cancelled its error is
// returned as is. Other etcd errors (for example a request above etcd's
// size limit, or a permission error) are returned as they are.
//
// # Watches
//
// Watches without a revision start at the revision current when Watch is
// called (one extra request), so no write after Watch returns is missed.
// A response's Revision is the last revision of its events, or etcd's
// header revision for a progress notification. Progress notifications
// come from the etcd server at its --watch-progress-notify-interval (ten
// minutes by default) and, more usefully, on request: while a watch with
// ProgressNotify is open the store asks for one every
// [Options.ProgressInterval], and [Store.RequestProgress] asks at once.
// etcd only answers when every watch on the client's stream has caught
// up, so a notification can be skipped while some watch replays history.
//
// Watches ask for a leader (clientv3's WithRequireLeader), so a member
// cut off from its cluster ends them with ErrUnavailable instead of
// leaving them silent. While etcd cannot be reached at all, the client
// keeps retrying and the watch stays open and silent (no progress
// notifications either), then resumes where it was; a closed client ends
// it with ErrUnavailable. etcd delivers a watch's events through the
// client's unbounded buffers: a consumer that stops reading grows the
// client's memory, not the server's.
//
// # Sharing
//
// A [Store] does not own its client: close the client when done with the
// store. Several stores, with different prefixes, may share one client;
// each sends its own progress requests.
// The KeyValues returned are not shared with the store; the values are
// those decoded from etcd's responses.
package etcd
