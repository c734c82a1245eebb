package registry

import (
	"sync"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/watch"
)

// A run-time kind with a conversion function ([Kind].Convert, a
// conversion webhook) converts each object alone, as kube-apiserver
// does: it decodes, and so converts, every object of a list one by one
// (its watch cache of each version converts each object as it changes),
// so a webhook gets one ConversionReview per object, never a list's
// objects together. Each converted object is kept on its entry, once per
// object version and version asked for, for every read and encoding of
// it that follows: kapi converts an object when a read first needs it in
// that version, where kube converts every change for every version it
// serves as the change happens, and again on every read that bypasses
// its cache.

// convertedKey keys the converted object kept on an entry.
const convertedKey = "apiserver/converted"

// pageConversions is how many objects of a list page are converted at
// once: a page read for the first time in another version waits for its
// conversions, which one at a time would take a round trip each.
const pageConversions = 4

// KeepsConverted reports whether the resource keeps the objects it
// converts on their entries (see keptObject).
func (r *Resource) KeepsConverted() bool {
	return r.Versions != nil && r.Versions.convertFn != nil
}

// ConvertPage converts the objects of a list page not yet converted to
// the resource's version, each in its own call, a few at once, and keeps
// them on their entries for the encoding that follows.
func (r *Resource) ConvertPage(entries []*watch.Entry) error {
	if !r.KeepsConverted() {
		return nil
	}
	key := r.VersionKey(convertedKey)
	var todo []*watch.Entry
	for _, e := range entries {
		if r.Spliceable(e.KV) {
			continue // stored in this version, as JSON
		}
		if _, ok := e.Kept(key); !ok {
			todo = append(todo, e)
		}
	}
	if len(todo) < 2 {
		return nil // converted as it is encoded
	}
	return r.convertEach(todo)
}

// convertEach converts entries' objects with up to pageConversions calls
// at a time; the first error stops it (the list fails with it).
func (r *Resource) convertEach(entries []*watch.Entry) error {
	var (
		mu    sync.Mutex
		first error
		i     int
		wg    sync.WaitGroup
	)
	// take returns the next entry to convert, nil when done or failed.
	take := func() *watch.Entry {
		mu.Lock()
		defer mu.Unlock()
		if first != nil || i == len(entries) {
			return nil
		}
		i++
		return entries[i-1]
	}
	for range min(pageConversions, len(entries)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := take(); e != nil; e = take() {
				if _, err := r.KeptObject(e); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// KeptObject returns an entry's object in the resource's version,
// converting it (alone) and keeping it the first time.
func (r *Resource) KeptObject(e *watch.Entry) (meta.Object, error) {
	v, err := e.Derived(r.VersionKey(convertedKey), func() (any, error) {
		obj, err := Object(e)
		if err != nil {
			return nil, err
		}
		return r.InVersion(obj)
	})
	if err != nil {
		return nil, err
	}
	return v.(meta.Object), nil
}
