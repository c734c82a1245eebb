package memory

import (
	"slices"

	"github.com/kapi-dev/kapi/storage"
)

// The event log stores the event of every retained revision, one per
// revision, in fixed-size chunks addressed by revision: chunk number
// rev>>chunkBits, slot rev&chunkMask.
//
// A history value is a view of the log as of one state. Slots of revisions
// at or below that state's revision are never written again, so readers use
// them without locking while the single writer fills later slots (of the
// same chunk or of chunks appended to a shared backing array beyond the
// view's length). Dropping old chunks makes a fresh slice, so a view held
// by a reader stays valid.
const (
	chunkBits = 8
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
)

type chunk [chunkSize]storage.Event

type history struct {
	first  int64 // chunk number of chunks[0]
	chunks []*chunk
}

// at returns the event of revision rev, which must be retained.
func (h *history) at(rev int64) *storage.Event {
	return &h.chunks[rev>>chunkBits-h.first][rev&chunkMask]
}

// appended returns the log with ev recorded as the event of rev, which must
// be the revision after the last one recorded.
func (h history) appended(rev int64, ev storage.Event) history {
	c := rev >> chunkBits
	if len(h.chunks) == 0 {
		h.first = c
	}
	if c-h.first == int64(len(h.chunks)) {
		h.chunks = append(h.chunks, new(chunk))
	}
	h.chunks[c-h.first][rev&chunkMask] = ev
	return h
}

// trimmed returns the log without the chunks that only hold revisions at or
// below compacted.
func (h history) trimmed(compacted int64) history {
	keep := (compacted + 1) >> chunkBits
	drop := keep - h.first
	if drop <= 0 {
		return h
	}
	if drop >= int64(len(h.chunks)) {
		return history{first: keep}
	}
	return history{first: keep, chunks: slices.Clone(h.chunks[drop:])}
}

// released returns the log with the events of revisions at or below
// compacted cleared, so that the values they hold can be collected. The
// log must be trimmed through compacted. The chunk holding them is copied,
// not cleared in place: views of earlier states may still read it.
func (h history) released(compacted int64) history {
	if len(h.chunks) == 0 || compacted>>chunkBits != h.first {
		return h // compacted ends a chunk that trimmed already dropped
	}
	cp := *h.chunks[0]
	clear(cp[:compacted&chunkMask+1])
	chunks := slices.Clone(h.chunks)
	chunks[0] = &cp
	return history{first: h.first, chunks: chunks}
}
