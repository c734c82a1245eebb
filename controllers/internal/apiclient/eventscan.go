package apiclient

import (
	"bytes"

	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/meta"
)

// A kapi server writes a watch event as
// {"type":T,"object":{"kind":K,"apiVersion":V,"metadata":M,...}}, compact,
// its members in that order. So an event is read in one pass from its
// start: the type, then the object's members until kind, apiVersion and
// metadata are found, the metadata decoded in place by the plan with the
// members no controller reads skipped over; the rest of the object (its spec and
// status, most of the frame) is not read at all. Whatever does not fit
// (another order, escapes, an ERROR event, what the plan gives up on)
// is read again the general way, which gives the same Event: the plan
// decodes only what it can vouch for, and the general way first cuts
// the unread members out of the metadata.

// unreadMetadata are the members of an object's metadata that no
// controller reads from a watch event, and so are left out of it (see
// [Event]): managedFields are most of the metadata, and the maps and the
// timestamp most of what decoding the rest allocates.
var unreadMetadata = []string{"managedFields", "labels", "annotations", "creationTimestamp"}

// metadataSkipping is metadataPlan with unreadMetadata skipped.
var metadataSkipping = metadataPlan.Skipping(unreadMetadata...)

// dropUnread zeroes the fields of unreadMetadata in m.
func dropUnread(m *meta.ObjectMeta) {
	m.ManagedFields, m.Labels, m.Annotations, m.CreationTimestamp = nil, nil, nil, meta.Time{}
}

// eventPrefix and objectPrefix start an event, around its type.
const (
	eventPrefix  = `{"type":"`
	objectPrefix = `,"object":{`
)

// watchTexts holds the kind and apiVersion of a watch's last event, for
// the next ones to share: a watch is of one kind, and those strings were
// two allocations per event. The zero watchTexts is ready for use.
type watchTexts struct{ kind, apiVersion string }

// share returns b as a string: *last when it holds b's bytes, else a new
// string, which it keeps in *last.
func share(b []byte, last *string) string {
	if string(b) != *last {
		*last = string(b)
	}
	return *last
}

// scanEvent reads a frame as a server writes it, and reports false when
// it cannot; ev is then to be read the general way.
func (t *watchTexts) scanEvent(frame []byte) (ev Event, ok bool) {
	frame = bytes.TrimLeft(frame, " \t\r\n")
	if !bytes.HasPrefix(frame, []byte(eventPrefix)) {
		return ev, false
	}
	i := len(eventPrefix) - 1
	end := plainString(frame, i)
	if end < 0 || !bytes.HasPrefix(frame[end:], []byte(objectPrefix)) {
		return ev, false
	}
	ev.Type = eventType(frame[i+1 : end-1])
	if ev.Type == "ERROR" {
		return ev, false
	}
	sc := objectScan{texts: t, obj: &ev.Object}
	if !sc.scan(frame, end+len(objectPrefix)) {
		return Event{}, false
	}
	return ev, true
}

// objectScan reads one object's members into obj: each of kind,
// apiVersion and metadata once.
type objectScan struct {
	texts                      *watchTexts
	obj                        *Object
	kind, apiVersion, metadata bool // read
}

// scan reads the members of the object whose first member starts at
// frame[i], up to its metadata, kind and apiVersion.
func (sc *objectScan) scan(frame []byte, i int) bool {
	if i < len(frame) && frame[i] == '}' {
		return false // an empty object: no metadata
	}
	for !(sc.kind && sc.apiVersion && sc.metadata) {
		k := plainString(frame, i)
		if k < 0 || k >= len(frame) || frame[k] != ':' {
			return false
		}
		e := sc.member(frame, frame[i+1:k-1], k+1)
		switch {
		case e < 0 || e >= len(frame):
			return false
		case frame[e] == '}':
			return sc.metadata // the object ended
		case frame[e] != ',':
			return false
		}
		i = e + 1
	}
	return true
}

// member reads the value at frame[v] of the object's member key and
// returns the index just past it, or -1.
func (sc *objectScan) member(frame, key []byte, v int) int {
	switch string(key) {
	case "kind", "apiVersion":
		to, seen, last := &sc.obj.Kind, &sc.kind, &sc.texts.kind
		if key[0] == 'a' {
			to, seen, last = &sc.obj.APIVersion, &sc.apiVersion, &sc.texts.apiVersion
		}
		e := plainString(frame, v)
		if e < 0 || *seen {
			return -1
		}
		*to, *seen = share(frame[v+1:e-1], last), true
		return e
	case "metadata":
		if sc.metadata {
			return -1
		}
		n, ok := metadataSkipping.DecodePrefix(frame[v:], &sc.obj.Metadata)
		if !ok {
			return -1
		}
		sc.metadata = true
		return v + n
	}
	return jsonscan.SkipValue(frame, v)
}

// plainString returns the index just past the string at frame[i] when it
// holds no escape, else -1.
func plainString(frame []byte, i int) int {
	if i >= len(frame) || frame[i] != '"' {
		return -1
	}
	n := bytes.IndexByte(frame[i+1:], '"')
	if n < 0 || bytes.IndexByte(frame[i+1:i+1+n], '\\') >= 0 {
		return -1
	}
	return i + n + 2
}

// eventType returns an event's type, the usual ones without allocating.
func eventType(b []byte) string {
	switch string(b) {
	case "ADDED":
		return "ADDED"
	case "MODIFIED":
		return "MODIFIED"
	case "DELETED":
		return "DELETED"
	case "BOOKMARK":
		return "BOOKMARK"
	case "ERROR":
		return "ERROR"
	}
	return string(b)
}
