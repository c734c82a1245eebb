package watch

import (
	"sync"
	"sync/atomic"
)

// frames holds a change's encoded events: one per event type and media
// type, each made once and shared by every watcher that receives the
// change. They are kept while watchers are likely to ask for them: the
// cache releases them once the change is older than frameTTL, or when the
// frames of its window take more than frameBytes (oldest first), and
// when the change leaves the window. A watcher that asks after that (one
// far behind, or one replaying the window) encodes the event for itself,
// so a busy window costs the memory of its encodings for seconds, not for
// the window's whole span (a frame made while the window's take
// frameBytes is not kept at all): kube-apiserver also keeps an event's
// serializations only while it is being dispatched.
type frames struct {
	list atomic.Pointer[[]frame] // read without locking
	mu   sync.Mutex              // held while encoding, so each form is made once
	ctr  *Counters
	// book counts the bytes of the window's kept frames; nil for a
	// change that is not in the window, whose frames are not counted.
	book *frameBook
	// released is set, under mu, once the cache has let the frames go:
	// later encodings are not kept.
	released atomic.Bool
}

// frameSource is what a cache's records share for their frames: the
// counters, the book of the window's frames (nil for changes outside the
// window, such as those a replaying watcher reads from the store), and
// the released frames a record whose frames were never made points at
// once they are let go.
type frameSource struct {
	ctr  *Counters
	book *frameBook
	done frames
}

func newFrameSource(ctr *Counters, book *frameBook) *frameSource {
	src := &frameSource{ctr: ctr, book: book}
	src.done.ctr = ctr
	src.done.released.Store(true)
	return src
}

// encoded returns the record's frame for typ and mediaType (see
// frames.get), making the record's frames, counted in src, on first use.
func (r *record) encoded(src *frameSource, typ EventType, mediaType string, encode func() ([]byte, error)) ([]byte, error) {
	f := r.frames.Load()
	if f == nil {
		if src == nil {
			return encode()
		}
		f = &frames{ctr: src.ctr, book: src.book}
		if !r.frames.CompareAndSwap(nil, f) {
			f = r.frames.Load()
		}
	}
	return f.get(typ, mediaType, encode)
}

// releaseFrames lets the record's frames go, and keeps none made later;
// src is where they are counted.
func (r *record) releaseFrames(src *frameSource) {
	if src != nil && r.frames.CompareAndSwap(nil, &src.done) {
		return
	}
	if f := r.frames.Load(); f != nil {
		f.release()
	}
}

// frameBook counts the bytes of the encoded events a cache keeps.
type frameBook struct {
	bytes atomic.Int64
}

// full reports whether the window's kept frames take frameBytes: a
// further one is not kept until the cache has released older ones.
func (b *frameBook) full() bool { return b != nil && b.bytes.Load() >= frameBytes }

// The bounds of the window's kept encodings (see frames).
const (
	frameTTL   = 5e9 // nanoseconds
	frameBytes = 16 << 20
)

type frame struct {
	typ       EventType
	mediaType string
	data      []byte
}

// get returns the frame for typ and mediaType, calling encode under the
// lock the first time. Concurrent callers of a missing frame wait for the
// first one, which is what they would do anyway: they need the bytes.
func (f *frames) get(typ EventType, mediaType string, encode func() ([]byte, error)) ([]byte, error) {
	if data, ok := f.lookup(typ, mediaType); ok {
		return data, nil
	}
	if f.released.Load() {
		f.ctr.addEncoding()
		return encode() // kept by nobody: no need to wait for others
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if data, ok := f.lookup(typ, mediaType); ok {
		return data, nil
	}
	data, err := encode()
	f.ctr.addEncoding()
	if err != nil || f.released.Load() || f.book.full() {
		return data, err
	}
	var next []frame
	if cur := f.list.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, frame{typ: typ, mediaType: mediaType, data: data})
	f.list.Store(&next)
	if f.book != nil {
		f.book.bytes.Add(int64(len(data)))
	}
	return data, nil
}

// release drops the frames, and keeps none made later.
func (f *frames) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.released.Store(true)
	cur := f.list.Swap(nil)
	if cur == nil || f.book == nil {
		return
	}
	n := 0
	for _, x := range *cur {
		n += len(x.data)
	}
	f.book.bytes.Add(-int64(n))
}

func (f *frames) lookup(typ EventType, mediaType string) ([]byte, bool) {
	if cur := f.list.Load(); cur != nil {
		for _, x := range *cur {
			if x.typ == typ && x.mediaType == mediaType {
				return x.data, true
			}
		}
	}
	return nil, false
}

// releaseFrames releases the frames of st's records from the first one
// not released yet up to the one before seq, and then those of the later
// records that are older than frameTTL, oldest first, and while the
// window's frames take more than half of frameBytes, so that new frames
// find room.
// Only the upstream goroutine calls it; st.log holds every record from
// c.up.framed on.
func (c *Cache) releaseFrames(st *state, seq int64, now int64) {
	c.up.framed = max(c.up.framed, st.log.first)
	for ; c.up.framed < seq; c.up.framed++ {
		st.log.at(c.up.framed).releaseFrames(c.windowFrames)
	}
	for ; c.up.framed < st.log.end; c.up.framed++ {
		rec := st.log.at(c.up.framed)
		if rec.at > now-frameTTL && c.frameBook.bytes.Load() <= frameBytes/2 {
			return
		}
		rec.releaseFrames(c.windowFrames)
	}
}

// Encoded returns the bytes of the event as a server sends it in
// mediaType, calling encode to make them the first time any watcher asks
// for this event type and media type and returning the same bytes to
// every later call, from any watcher: a change delivered to W watchers in
// one media type is encoded once, not W times. Concurrent first calls wait
// for one encoding. mediaType is an opaque key: use one per distinct byte
// form (media type and rendering), since the bytes are framed by the
// caller. An encode error is returned and not kept.
//
// The bytes are kept for a few seconds while the change is in the event
// window and are shared: they must not be modified. A watcher that asks
// later encodes again. Events that are not changes (initial events and
// bookmarks) are not shared between watchers: for them Encoded just calls
// encode.
func (ev *Event) Encoded(mediaType string, encode func() ([]byte, error)) ([]byte, error) {
	if ev.rec == nil {
		return encode()
	}
	return ev.rec.encoded(ev.src, ev.Type, mediaType, encode)
}
