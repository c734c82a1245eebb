package registry

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
	TermHintSlots = 4096
	TermHintBytes = 16 << 20
)

// TermHints holds hints in a ring where the oldest hint makes way for a
// new one. The ring starts small and doubles, up to termHintSlots, when a
// new hint would push out one the cache has not taken yet: it is as large
// as the cache's lag has needed, not 4096 slots (360 KB) for every kind
// with selectable fields that was written once. The hints of one key are
// chained, newest first: a key written again before the cache indexed its
// last value has a hint for each value.
type TermHints struct {
	Mu    sync.Mutex
	ByKey map[string]hintRef // the key's newest hint
	Ring  []termHint         // made at the first hint; hint seq is in slot seq%len(ring)
	seq   uint64             // hints put so far
	first uint64             // the oldest hint that may still be held
	Held  int                // bytes of the values held
	Taken uint64             // hints used, for tests
	// peak is the most keys byKey has held since it was made. A map
	// keeps the room of its largest size: one that a burst of writes
	// grew is made anew once the cache has taken every hint.
	peak int
}

// smallHintMap is the most keys a byKey map may have held and still be
// kept once empty; firstHintSlots is the ring's first size.
const (
	SmallHintMap   = 64
	FirstHintSlots = 64
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

func (h *TermHints) at(ref hintRef) (*termHint, bool) {
	t := &h.Ring[h.slot(uint64(ref))]
	return t, ref != 0 && t.seq == uint64(ref)
}

func (h *TermHints) slot(seq uint64) int { return int(seq % uint64(len(h.Ring))) }

// grow doubles the ring, each hint moving to its slot in the new one.
// The hints held are numbered within one ring's length, so no two share
// a slot.
func (h *TermHints) grow() {
	ring := make([]termHint, 2*len(h.Ring))
	for _, t := range h.Ring {
		if t.seq != 0 {
			ring[t.seq%uint64(len(ring))] = t
		}
	}
	h.Ring = ring
}

// Put leaves terms as the hint for value at key.
func (h *TermHints) Put(key string, value []byte, terms []string) {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	if h.ByKey == nil {
		h.ByKey, h.Ring = make(map[string]hintRef), make([]termHint, FirstHintSlots)
	}
	h.seq++
	if len(h.Ring) < TermHintSlots && h.Ring[h.slot(h.seq)].seq != 0 {
		h.grow()
	}
	ref := hintRef(h.seq)
	h.drop(h.slot(h.seq), 0)
	h.Held += len(value)
	for h.first = max(h.first, h.seq-min(h.seq, uint64(len(h.Ring)))); h.Held > TermHintBytes && h.first < h.seq; h.first++ {
		h.drop(h.slot(h.first), h.first)
	}
	h.Ring[h.slot(h.seq)] = termHint{seq: h.seq, key: key, value: value, terms: terms, older: h.ByKey[key]}
	h.ByKey[key] = ref
	h.peak = max(h.peak, len(h.ByKey))
}

// shrink makes byKey anew when it is empty after having held many keys,
// so that the room a burst took is let go.
func (h *TermHints) shrink() {
	if len(h.ByKey) == 0 && h.peak > SmallHintMap {
		h.ByKey, h.peak = make(map[string]hintRef), 0
	}
}

// drop forgets the hint in slot, if any; if seq is not 0, only when the
// hint is number seq.
func (h *TermHints) drop(slot int, seq uint64) {
	old := &h.Ring[slot]
	if old.seq == 0 || seq != 0 && old.seq != seq {
		return
	}
	if head := h.ByKey[old.key]; uint64(head) == old.seq {
		delete(h.ByKey, old.key)
	}
	h.Held -= len(old.value)
	*old = termHint{}
}

// Take returns the terms of the hint left for kv's key and value, and
// forgets it; false when there is none. A hint taken from the middle of
// its key's chain is unlinked from it, so that the older hints stay
// reachable: a key written twice before the cache caught up has the
// replaced value hinted twice (by its own write and by the next write's
// read), and the cache takes the newer one first.
func (h *TermHints) Take(kv *storage.KeyValue) ([]string, bool) {
	if h == nil {
		return nil, false
	}
	h.Mu.Lock()
	defer h.Mu.Unlock()
	head, ok := h.ByKey[kv.Key]
	var newer *termHint // the hint whose older link led here
	for ref := head; ok; ref = h.Ring[h.slot(uint64(ref))].older {
		var t *termHint
		if t, ok = h.at(ref); !ok {
			break
		}
		if !bytes.Equal(t.value, kv.Value) {
			newer = t
			continue
		}
		terms, older := t.terms, t.older
		h.Held -= len(t.value)
		*t = termHint{}
		switch {
		case newer != nil:
			newer.older = older
		case h.isHeld(older):
			h.ByKey[kv.Key] = older
		default:
			delete(h.ByKey, kv.Key)
		}
		h.Taken++
		h.shrink()
		return terms, true
	}
	return nil, false
}

// isHeld reports whether the hint ref points at is still held.
func (h *TermHints) isHeld(ref hintRef) bool {
	_, ok := h.at(ref)
	return ok
}

// HintTerms leaves the index terms of obj, about to be stored as value at
// key, for the cache; r is the storage version's resource and obj in the
// storage version. Only kinds whose terms need a decode leave hints.
func (r *Resource) HintTerms(key string, value []byte, obj meta.Object) {
	if len(r.Kind.SelectableFields) == 0 || r.Hints == nil {
		return
	}
	r.Hints.Put(key, value, r.ObjectTerms(obj))
}

// ObjectTerms returns the index terms of obj, as indexTerms returns them
// for obj stored.
func (r *Resource) ObjectTerms(obj meta.Object) []string {
	labels := obj.GetObjectMeta().Labels
	terms := make([]string, 0, len(labels)+len(r.Kind.SelectableFields))
	for field, get := range r.Kind.SelectableFields {
		terms = append(terms, FieldTerm(field, get(obj)))
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
