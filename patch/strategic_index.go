package patch

import (
	"container/heap"
	"fmt"
)

// The list merges find elements by key (a scalar itself, an object by its
// merge key's value). kube scans the list for each look-up, which costs
// n² on long lists; these indexes give the same answers, first match
// first, in one pass.

// keyOf returns the key an element is found by: the element for scalars,
// the value of the merge key (nil when absent or not an object) for
// objects, as kube's index search compares them.
func keyOf(v any, mergeKey string, kind elemKind) any {
	if kind != mapElems {
		return v
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return m[mergeKey]
}

// firstIndex maps each hashable key of l to the first position holding
// it; unhashable keys equal nothing and are left out.
func (mg *merger) firstIndex(l []any, mergeKey string, kind elemKind) map[any]int {
	idx := make(map[any]int, len(l))
	for i, v := range l {
		mg.work++
		k := keyOf(v, mergeKey, kind)
		if !isHashable(k) {
			continue
		}
		if _, seen := idx[k]; !seen {
			idx[k] = i
		}
	}
	return idx
}

// lookup returns idx's position for k, or -1.
func (mg *merger) lookup(idx map[any]int, k any) int {
	mg.work++
	if !isHashable(k) {
		return -1
	}
	if i, ok := idx[k]; ok {
		return i
	}
	return -1
}

// byKey indexes the objects of a list by the value of their merge key, for
// lists that grow at the end and whose elements may lose the key when
// merged (a $retainKeys or a null key in the patch). It answers what a
// scan from the start would: the first object holding the value, and an
// error when an element that is not an object comes before it.
type byKey struct {
	key       string
	positions map[any][]int
	nonMap    int // the first element that is not an object, or -1
}

func (mg *merger) indexByKey(l []any, key string) *byKey {
	ix := &byKey{key: key, positions: make(map[any][]int, len(l)), nonMap: -1}
	for i, v := range l {
		mg.work++
		ix.add(v, i)
	}
	return ix
}

// add records the element v appended at position i.
func (ix *byKey) add(v any, i int) {
	m, ok := v.(map[string]any)
	if !ok {
		if ix.nonMap < 0 {
			ix.nonMap = i
		}
		return
	}
	if k, ok := m[ix.key]; ok && isHashable(k) {
		ix.positions[k] = append(ix.positions[k], i)
	}
}

// find returns the first object of l whose key equals value.
func (mg *merger) find(ix *byKey, l []any, value any) (map[string]any, int, bool, error) {
	mg.work++
	var ps []int
	if isHashable(value) {
		ps = ix.positions[value]
	}
	for len(ps) > 0 {
		i := ps[0]
		if ix.nonMap >= 0 && ix.nonMap < i {
			break
		}
		if m, ok := l[i].(map[string]any); ok {
			if mv, ok := m[ix.key]; ok && safeEqual(mv, value) {
				ix.positions[value] = ps
				return m, i, true, nil
			}
		}
		mg.work++
		ps = ps[1:] // the element lost its key in a merge
	}
	if isHashable(value) {
		ix.positions[value] = ps
	}
	if ix.nonMap >= 0 {
		return nil, 0, false, errNotAMap(ix.nonMap)
	}
	return nil, 0, false, nil
}

// positionHeap is a min-heap of list positions.
type positionHeap []int

func (h positionHeap) Len() int           { return len(h) }
func (h positionHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h positionHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *positionHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *positionHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// deduplicateScalars removes repeated scalars in place with kube's
// algorithm: for each element in turn, every later copy of it is replaced
// by the list's last element, which is then checked again. Where kube
// scans for the copies, the positions of each value are kept in a heap,
// so that the same replacements happen, in the same order, in n·log n.
// The result, and what is left in s's array, are kube's.
func (mg *merger) deduplicateScalars(s []any) []any {
	positions := make(map[any]*positionHeap, len(s))
	for i, v := range s {
		mg.work++
		if !isHashable(v) {
			continue // equal to nothing
		}
		h := positions[v]
		if h == nil {
			h = &positionHeap{}
			positions[v] = h
		}
		*h = append(*h, i) // ascending: already a heap
	}
	length := len(s) - 1
	for i := 0; i < length; i++ {
		x := s[i]
		if !isHashable(x) {
			continue
		}
		h := positions[x]
		if h == nil {
			continue
		}
		for h.Len() > 0 && length > i {
			mg.work++
			j := (*h)[0]
			if j <= i || j > length || !safeEqual(s[j], x) {
				heap.Pop(h) // stale: moved, overwritten or past the end
				continue
			}
			// s[j] is a copy of x: the last element takes its place.
			last := s[length]
			s[j] = last
			s = s[:length]
			length--
			if safeEqual(last, x) || j > length {
				continue // checked again at j (or j was the last)
			}
			heap.Pop(h)
			if isHashable(last) {
				if lh := positions[last]; lh != nil {
					heap.Push(lh, j)
				}
			}
		}
	}
	return s
}

// errNotAMap is kube's error for a list element that is not an object
// where one is looked up by key.
func errNotAMap(i int) error {
	return fmt.Errorf("value for key %v is not a map", i)
}
