package watch

import (
	"sync"
	"sync/atomic"
)

// frames holds a change's encoded events: one per event type and media
// type, each made once and shared by every watcher that receives the
// change. They live as long as the change stays in the event window, not
// as long as the object, so a busy window costs memory for its own span
// only.
type frames struct {
	list atomic.Pointer[[]frame] // read without locking
	mu   sync.Mutex              // held while encoding, so each form is made once
	ctr  *Counters
}

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
	f.mu.Lock()
	defer f.mu.Unlock()
	if data, ok := f.lookup(typ, mediaType); ok {
		return data, nil
	}
	data, err := encode()
	f.ctr.addEncoding()
	if err != nil {
		return nil, err
	}
	var next []frame
	if cur := f.list.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, frame{typ: typ, mediaType: mediaType, data: data})
	f.list.Store(&next)
	return data, nil
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

// Encoded returns the bytes of the event as a server sends it in
// mediaType, calling encode to make them the first time any watcher asks
// for this event type and media type and returning the same bytes to
// every later call, from any watcher: a change delivered to W watchers in
// one media type is encoded once, not W times. Concurrent first calls wait
// for one encoding. mediaType is an opaque key: use one per distinct byte
// form (media type and rendering), since the bytes are framed by the
// caller. An encode error is returned and not kept.
//
// The bytes are kept with the change in the event window and are shared:
// they must not be modified. Events that are not changes (initial events
// and bookmarks) are not shared between watchers: for them Encoded just
// calls encode.
func (ev *Event) Encoded(mediaType string, encode func() ([]byte, error)) ([]byte, error) {
	if ev.rec == nil {
		return encode()
	}
	return ev.rec.frames.get(ev.Type, mediaType, encode)
}
