package apiserver

import (
	"bytes"
	"slices"
	"sync"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

// A kind with selectable fields is indexed by values that only its Go
// functions can read (Kind.SelectableFields), so indexing a stored value
// means decoding it, on the cache's one update goroutine, for every
// change. The request that writes the value has the object decoded
// already: it leaves the object's terms as a hint for the cache, which
// uses them for a value byte-equal to the one the hint was made for.
// Terms are a function of the stored bytes, so a hint that does not
// match (a lost race, another server's write, a value the store or the
// cache's transform rewrote) costs a decode, never a wrong index.

// termHintSlots and termHintBytes bound the hints waiting for the cache,
// and the values they hold alive. A hint waits as long as the cache is
// behind the store, which under load (many writers, the cache's goroutine
// waiting for a CPU) is thousands of writes.
const (
	termHintSlots = 4096
	termHintBytes = 16 << 20
)

// termHints holds hints in a ring where the oldest hint makes way for a
// new one. The ring starts small and doubles, up to termHintSlots, when a
// new hint would push out one the cache has not taken yet: it is as large
// as the cache's lag has needed, not 4096 slots (360 KB) for every kind
// with selectable fields that was written once. The hints of one key are
// chained, newest first: a key written again before the cache indexed its
// last value has a hint for each value.
type termHints struct {
	mu    sync.Mutex
	byKey map[string]hintRef // the key's newest hint
	ring  []termHint         // made at the first hint; hint seq is in slot seq%len(ring)
	seq   uint64             // hints put so far
	first uint64             // the oldest hint that may still be held
	held  int                // bytes of the values held
	taken uint64             // hints used, for tests
	// peak is the most keys byKey has held since it was made. A map
	// keeps the room of its largest size: one that a burst of writes
	// grew is made anew once the cache has taken every hint.
	peak int
}

// smallHintMap is the most keys a byKey map may have held and still be
// kept once empty; firstHintSlots is the ring's first size.
const (
	smallHintMap   = 64
	firstHintSlots = 64
)

// hintRef points at a hint: the one put as number seq, if its slot
// still holds it; 0 for none.
type hintRef uint64

type termHint struct {
	seq   uint64 // 0 for an empty slot
	key   string
	value []byte
	terms []string
	older hintRef // the key's previous hint
}

func (h *termHints) at(ref hintRef) (*termHint, bool) {
	t := &h.ring[h.slot(uint64(ref))]
	return t, ref != 0 && t.seq == uint64(ref)
}

func (h *termHints) slot(seq uint64) int { return int(seq % uint64(len(h.ring))) }

// grow doubles the ring, each hint moving to its slot in the new one.
// The hints held are numbered within one ring's length, so no two share
// a slot.
func (h *termHints) grow() {
	ring := make([]termHint, 2*len(h.ring))
	for _, t := range h.ring {
		if t.seq != 0 {
			ring[t.seq%uint64(len(ring))] = t
		}
	}
	h.ring = ring
}

// put leaves terms as the hint for value at key.
func (h *termHints) put(key string, value []byte, terms []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byKey == nil {
		h.byKey, h.ring = make(map[string]hintRef), make([]termHint, firstHintSlots)
	}
	h.seq++
	if len(h.ring) < termHintSlots && h.ring[h.slot(h.seq)].seq != 0 {
		h.grow()
	}
	ref := hintRef(h.seq)
	h.drop(h.slot(h.seq), 0)
	h.held += len(value)
	for h.first = max(h.first, h.seq-min(h.seq, uint64(len(h.ring)))); h.held > termHintBytes && h.first < h.seq; h.first++ {
		h.drop(h.slot(h.first), h.first)
	}
	h.ring[h.slot(h.seq)] = termHint{seq: h.seq, key: key, value: value, terms: terms, older: h.byKey[key]}
	h.byKey[key] = ref
	h.peak = max(h.peak, len(h.byKey))
}

// shrink makes byKey anew when it is empty after having held many keys,
// so that the room a burst took is let go.
func (h *termHints) shrink() {
	if len(h.byKey) == 0 && h.peak > smallHintMap {
		h.byKey, h.peak = make(map[string]hintRef), 0
	}
}

// drop forgets the hint in slot, if any; if seq is not 0, only when the
// hint is number seq.
func (h *termHints) drop(slot int, seq uint64) {
	old := &h.ring[slot]
	if old.seq == 0 || seq != 0 && old.seq != seq {
		return
	}
	if head := h.byKey[old.key]; uint64(head) == old.seq {
		delete(h.byKey, old.key)
	}
	h.held -= len(old.value)
	*old = termHint{}
}

// take returns the terms of the hint left for kv's key and value, and
// forgets it; false when there is none. A hint taken from the middle of
// its key's chain is unlinked from it, so that the older hints stay
// reachable: a key written twice before the cache caught up has the
// replaced value hinted twice (by its own write and by the next write's
// read), and the cache takes the newer one first.
func (h *termHints) take(kv *storage.KeyValue) ([]string, bool) {
	if h == nil {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	head, ok := h.byKey[kv.Key]
	var newer *termHint // the hint whose older link led here
	for ref := head; ok; ref = h.ring[h.slot(uint64(ref))].older {
		var t *termHint
		if t, ok = h.at(ref); !ok {
			break
		}
		if !bytes.Equal(t.value, kv.Value) {
			newer = t
			continue
		}
		terms, older := t.terms, t.older
		h.held -= len(t.value)
		*t = termHint{}
		switch {
		case newer != nil:
			newer.older = older
		case h.isHeld(older):
			h.byKey[kv.Key] = older
		default:
			delete(h.byKey, kv.Key)
		}
		h.taken++
		h.shrink()
		return terms, true
	}
	return nil, false
}

// isHeld reports whether the hint ref points at is still held.
func (h *termHints) isHeld(ref hintRef) bool {
	_, ok := h.at(ref)
	return ok
}

// hintTerms leaves the index terms of obj, about to be stored as value at
// key, for the cache; r is the storage version's resource and obj in the
// storage version. Only kinds whose terms need a decode leave hints.
func (r *resource) hintTerms(key string, value []byte, obj meta.Object) {
	if len(r.kind.SelectableFields) == 0 || r.hints == nil {
		return
	}
	r.hints.put(key, value, r.objectTerms(obj))
}

// objectTerms returns the index terms of obj, as indexTerms returns them
// for obj stored.
func (r *resource) objectTerms(obj meta.Object) []string {
	labels := obj.GetObjectMeta().Labels
	terms := make([]string, 0, len(labels)+len(r.kind.SelectableFields))
	for field, get := range r.kind.SelectableFields {
		terms = append(terms, fieldTerm(field, get(obj)))
	}
	terms = appendLabelTerms(terms, labels)
	slices.Sort(terms)
	return terms
}

// appendLabelTerms appends the terms of labels to terms (labelTerm's),
// cut from one string rather than each made on its own: a create hints
// the terms of every label it carries.
func appendLabelTerms(terms []string, labels map[string]string) []string {
	n := 0
	for k, v := range labels {
		n += len(k) + 1 + len(v)
	}
	b := make([]byte, 0, n)
	var small [16]int // most objects: no allocation
	ends := small[:0]
	for k, v := range labels {
		b = append(append(append(b, k...), '='), v...)
		ends = append(ends, len(b))
	}
	all, at := string(b), 0
	for _, end := range ends {
		terms = append(terms, all[at:end])
		at = end
	}
	return terms
}
