// Package watch is kapi's watch cache: it sits between the API handlers
// and a [storage.Interface], keeps an indexed in-memory mirror of one
// resource's keys, serves gets and lists from memory, and fans one
// upstream watch out to any number of watchers.
//
//	c := watch.New(store, "/stable.example.com/widgets/", watch.Options{Decode: decode})
//	defer c.Stop()
//	page, err := c.List(ctx, "/stable.example.com/widgets/default/", watch.ListOptions{List: parsed, Filter: sel})
//	w, err := c.WatchWithInitialState(ctx, prefix, resourceversion.List{Semantics: resourceversion.Any}, watch.WatchOptions{})
//	for ev := range w.Events() { ... }
//
// # Revisions and the upstream
//
// Revisions are the store's. The cache's revision R means: every change to
// a key under the cache's prefix with a revision at or below R has been
// applied, and none above it. A cache lists its prefix at one revision,
// then follows one storage watch from that revision with progress
// notifications, which advance R when the store moved on without touching
// the prefix. The revision never goes backwards while the cache runs.
//
// When the upstream watch fails or ends, the cache watches again from R:
// no change is lost, and watchers notice nothing but a delay. When the
// store has compacted R, changes may be lost: the cache lists again at the
// store's current revision L and starts a new epoch. Every watcher of the
// old epoch then ends with a 410 Expired error (its consumer must list
// again), the event window restarts at L, and past snapshots are dropped.
// Reads keep being served from the previous state until the new list is
// loaded.
//
// # Entries
//
// An [Entry] is one object at one revision: its KeyValue (shared with the
// store), its decoded object (decoded once, on first use, by
// [Options.Decode]) and its encodings (one per media type, computed once by
// [Entry.Encoded]). The same Entry serves every get, every list page and
// every watch event of that object revision, so an object is decoded once
// and encoded once per media type, however many clients read or watch it.
// Entries are immutable and shared: callers must not modify them.
//
// # Reads
//
// [Cache.Get] and [Cache.List] take the parsed resourceversion request:
//
//   - MostRecent (resourceVersion unset) is a consistent read: the cache
//     asks the store for its current revision S, waits until R >= S and
//     serves its state at R. The result reflects every write that
//     completed before the read started. When R has not reached S within
//     [Options.FreshnessTimeout] (a write flood can hold the cache back),
//     the read is served from the store at its current revision instead,
//     as kube-apiserver falls back to etcd, and reported to
//     [Options.ConsistentRead] as a fallback. Concurrent consistent reads
//     share the request for S (and any progress request): at most one is
//     in flight, and the reads that arrive meanwhile wait for the next
//     one, sent when it returns, since only an answer asked for after a
//     read began covers every write completed before it. N concurrent
//     reads thus cost the store one or two requests, not N.
//   - Any ("0") serves the cache's state as it is (after the first list).
//   - NotOlderThan N waits until R >= N and serves the state at R.
//   - Exact N and a continuation at N serve the state at exactly N: from
//     the cache's snapshot of N when it has one, else from the store.
//
// Any other wait lasts at most [Options.FreshnessTimeout] and then fails
// with the 504 of resourceversion.TooLargeResourceVersion; every wait
// fails with a 429 "storage is (re)initializing" while the first list is
// not loaded. Every result
// carries the revision it was served at; all pages of one paged list are
// served at the revision of the first page, whatever writes happen in
// between, as long as that revision is readable (from a snapshot or from
// the store; else 410 Expired with a token that resumes at the current
// revision).
//
// Past states are not kept tree by tree: the mirror is a persistent
// B-tree, and each change in the event window keeps the entry it replaced,
// so the state at a past revision is rebuilt on demand by undoing the later
// changes on a copy-on-write clone of the current tree. The few rebuilt
// states that paged lists come back for are kept while they are used. The
// state at a past revision stays readable for [Options.SnapshotTTL] after a
// later change replaced it, and never longer than the change stays in the
// event window.
//
// # Watchers
//
// [Cache.Watch] starts a watcher after a revision; [Cache.WatchWithInitialState]
// starts one with the state at a revision. What a watcher sees:
//
//  1. Order: events come in strictly increasing revision order (initial
//     events, which come first, are in key order). A Bookmark at revision
//     B means every change up to B has been delivered; later events have
//     greater revisions.
//  2. Completeness: for a watch from revision N, the watcher receives, for
//     every change under its prefix with a revision greater than N, in
//     order, exactly one event (or none when the object fails the filter
//     before and after), until its channel closes. There are no gaps and
//     no duplicates. With initial state at R, the initial events are the
//     objects of the state at R that pass the filter, and the changes
//     follow as for a watch from R.
//  3. Filtering: with a filter F, a change from state p to state c is
//     delivered as Modified when F(p) and F(c), Added when only F(c),
//     Deleted (of p, stamped with the change's revision) when only F(p).
//     A deletion is Deleted when F(p). Replaying a watcher's events onto
//     the objects that passed F at its start revision gives exactly the
//     objects that pass F at every later revision it reaches.
//  4. Termination: the channel closes when the consumer calls Stop or the
//     watcher's context ends ([Watcher.Err] is nil), when the cache stops
//     ([ErrStopped]), when the cache lists its store again (410 Expired),
//     or when its consumer is too slow ([ErrTooSlow], below). Events
//     already in the channel are still delivered before it closes, so what
//     a watcher delivers is always a gap-free prefix of what it owes.
//  5. Starting points: Watch from N serves the changes after N that have
//     left the window (a restarted server's window starts at its first
//     list) from the store's history, then from the window, with the same
//     guarantees; it fails with 410 Expired only when the store has
//     compacted N too, and waits (up to FreshnessTimeout) when N is ahead
//     of the cache.
//
// # Fan-out and slow watchers
//
// The upstream goroutine applies a batch of events to the mirror, appends
// them to the event window and publishes the new state with one atomic
// pointer swap; it never waits for a watcher and takes no lock. Each
// watcher has its own goroutine that reads the shared window from its own
// cursor, applies its filter and sends to its channel of
// [Options.WatcherBuffer] events, or hands them to its
// [WatchOptions.Sink] (a server writing to a connection), which then
// bounds its own blocking. A watcher whose consumer is slow only
// delays its own goroutine: its backlog is the part of the shared window it
// has not read yet, so it costs no memory of its own. Memory is bounded by
// the window and the channels, whatever the consumers do.
//
// A cache with many watchers (32 or more) makes them linger: a watcher
// woken by a change soon after its last delivery holds it until 25 µs per
// watcher of the cache (25 ms at most) have passed since that delivery,
// then delivers every change that came meanwhile in one go, so that each
// watcher and its consumer wake once per batch rather than once per
// change. A change after a quiet spell goes out at once, and a cache with
// few watchers never holds one.
//
// A watcher is too slow, and ends with ErrTooSlow, when either
//
//   - its consumer stalled: the channel was full, with the next event
//     waiting, for [Options.StallTimeout] without the consumer taking
//     anything (checked about once a second, with [Options.Clock]); or
//   - its backlog outgrew the window (by count or by age): the next change
//     it owes is no longer there.
//
// A consumer that keeps taking events, however slowly, is only ended by
// the second rule; one that stops is ended by the first, so its
// connection and goroutine do not linger until the window moves on.
//
// Every change is encoded once per event type and media type while its
// watchers take it: [Event.Encoded] keeps the bytes with the change in the
// window and hands the same bytes to every watcher that asks for that
// form, for 5 seconds and within 16 MiB of encodings per cache, so that
// they cost memory while they are shared and not for the window's whole
// span (a watcher further behind encodes for itself). A change keeps
// nothing for that until a watcher first asks: a server that frames some
// streams straight from the stored bytes (as kapi's apiserver does for
// JSON) pays for the encodings it shares only.
// [Options.Counters] counts those encodings and the watchers ended as too
// slow.
//
// # Bookmarks
//
// A watcher with [WatchOptions.Bookmarks] gets a Bookmark carrying its
// position (the cache's revision once it has caught up) about every
// [Options.BookmarkInterval], and after progress notifications that moved
// the revision (at most one such round a second). [Watcher.RequestBookmark]
// asks for one at the cache's current revision or later, sent as soon as
// the watcher has caught up with it; [WatchOptions.InitialEventsEnd] asks
// for the one that ends the initial events.
package watch
