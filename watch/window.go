package watch

import (
	"slices"
	"sync/atomic"
)

// record is one change in the event window.
type record struct {
	rev   int64
	at    int64  // when the cache applied it, in Clock Unix nanoseconds
	entry *Entry // the new entry of a put; nil for a delete
	// prev is the entry it replaced or deleted, nil for a create: what
	// filtered watchers test, and what undoes the change when a past
	// state is rebuilt (see rewind).
	prev *Entry
	// tomb is prev stamped with rev, the object of a Deleted event: set
	// when the change is a delete, made on first use when a put makes an
	// object leave a watcher's filter.
	tomb atomic.Pointer[Entry]
	// frames are the change's encoded events, shared by its watchers:
	// made when a watcher first asks for one (many changes' watchers
	// never do, such as JSON streams that frame the stored bytes), so
	// that the window's records, one per change, stay small. Where they
	// are counted comes with each event (Event.src), not with the record.
	frames atomic.Pointer[frames]
}

// size is the stored bytes the record holds: entry's and prev's values,
// what Options.EventWindowBytes bounds.
func (r *record) size() int64 { return entrySize(r.entry) + entrySize(r.prev) }

// entrySize is the length of e's stored value, 0 for nil.
func entrySize(e *Entry) int64 {
	if e == nil || e.KV == nil {
		return 0
	}
	return int64(len(e.KV.Value))
}

func (r *record) key() string {
	if r.entry != nil {
		return r.entry.KV.Key
	}
	return r.prev.KV.Key
}

// tombstone returns prev as of the record's revision, made once.
func (r *record) tombstone() *Entry {
	if t := r.tomb.Load(); t != nil {
		return t
	}
	t := r.prev.stamped(r.rev)
	if !r.tomb.CompareAndSwap(nil, t) {
		t = r.tomb.Load()
	}
	return t
}

// The event log holds the window's records by sequence number in
// fixed-size chunks. An evlog value is a view of the log as one state sees
// it: the records [first, end). A slot below a view's end is never written
// again, so readers use views without locking while the single writer
// fills later slots; dropping old chunks makes a new slice of chunks, so
// older views stay valid.
const (
	chunkBits = 8
	chunkLen  = 1 << chunkBits
	chunkMask = chunkLen - 1
)

type chunk [chunkLen]*record

type evlog struct {
	first, end int64 // the retained records' sequence numbers
	base       int64 // sequence number of chunks[0][0]
	chunks     []*chunk
}

func (l *evlog) len() int { return int(l.end - l.first) }

// at returns the record with sequence number seq, first <= seq < end.
func (l *evlog) at(seq int64) *record {
	i := seq - l.base
	return l.chunks[i>>chunkBits][i&chunkMask]
}

// appended returns the view with r as its last record.
func (l evlog) appended(r *record) evlog {
	i := l.end - l.base
	if int(i>>chunkBits) == len(l.chunks) {
		l.chunks = append(l.chunks, new(chunk))
	}
	l.chunks[i>>chunkBits][i&chunkMask] = r
	l.end++
	return l
}

// trimmed returns the view without the records before first.
func (l evlog) trimmed(first int64) evlog {
	l.first = first
	if drop := (first - l.base) >> chunkBits; drop > 0 {
		l.chunks = slices.Clone(l.chunks[drop:])
		l.base += drop << chunkBits
	}
	return l
}

// search returns the sequence number of the first record whose revision is
// greater than rev (end when there is none).
func (l *evlog) search(rev int64) int64 {
	lo, hi := l.first, l.end
	for lo < hi {
		m := lo + (hi-lo)/2
		if l.at(m).rev <= rev {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
