package patch

import (
	"bytes"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Most writes carry back, or start from, managedFields entries that an
// earlier write of the same kind produced: the stored object's, which
// read-modify-write clients send back unchanged, and which objects created
// and updated alike share byte for byte. Decoding their sets is a large
// part of recording a write, and encoding the sets again gives the same
// bytes. A field manager keeps the sets it decoded by their FieldsV1
// bytes, so that a set seen before is neither decoded nor encoded again.

// maxCachedSetBytes bounds the FieldsV1 bytes a field manager keeps sets
// for (a decoded set takes several times its bytes); when a new set would
// exceed it the cache starts over. Objects of a kind written alike share
// a few distinct sets; a few hundred Widget entries fit.
const maxCachedSetBytes = 256 << 10

// setCache keeps decoded field sets by their FieldsV1 bytes. The sets are
// shared by every write that decodes the same bytes: nothing may change
// them (field sets are changed by making new ones).
type setCache struct {
	// pt is the schema sets are checked against.
	pt typed.ParseableType

	mu    sync.RWMutex
	sets  map[string]*decodedSet
	bytes int
}

// decodedSet is a FieldsV1 trie decoded.
type decodedSet struct {
	set *fieldpath.Set
	// raw is what encoding set gives, when it is the bytes it was decoded
	// from (a client may send equivalent JSON written otherwise), or nil.
	raw []byte
	// fits is set when reconciling set with the field manager's schema
	// changes nothing, which is what an entry of its version needs.
	fits bool
}

func newSetCache(pt typed.ParseableType) *setCache {
	return &setCache{pt: pt, sets: map[string]*decodedSet{}}
}

// decode returns the set raw encodes, from the cache when it was seen.
func (c *setCache) decode(raw []byte) (*decodedSet, error) {
	if c == nil {
		set, err := fieldsToSet(raw)
		if err != nil {
			return nil, err
		}
		return &decodedSet{set: set}, nil
	}
	c.mu.RLock()
	d, ok := c.sets[string(raw)]
	c.mu.RUnlock()
	if ok {
		return d, nil
	}
	set, err := fieldsToSet(raw)
	if err != nil {
		return nil, err
	}
	d = &decodedSet{set: set, fits: c.fits(set)}
	if enc, err := set.ToJSON(); err == nil && bytes.Equal(enc, raw) {
		d.raw = enc
	}
	c.mu.Lock()
	if c.bytes+len(raw) > maxCachedSetBytes {
		c.sets, c.bytes = map[string]*decodedSet{}, 0
	}
	if len(raw) <= maxCachedSetBytes {
		c.sets[string(raw)] = d
		c.bytes += len(raw)
	}
	c.mu.Unlock()
	return d, nil
}

// fits reports whether reconciling set with the schema changes nothing.
// Reconciling looks at the schema only, never at the object's values.
func (c *setCache) fits(set *fieldpath.Set) bool {
	tv := typed.AsTypedUnvalidated(value.NewValueInterface(map[string]any{}), c.pt.Schema, c.pt.TypeRef)
	out, err := typed.ReconcileFieldSetWithSchema(set, tv)
	return err == nil && out == nil
}
