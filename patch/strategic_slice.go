package patch

import (
	"errors"
	"fmt"
	"sort"

	"github.com/kapi-dev/kapi/schema"
)

// mergeSlice merges a patch list into a list with the merge strategy; a
// delete list ($deleteFromPrimitiveList) removes its scalars instead.
func (mg *merger) mergeSlice(original, patch []any, items *schema.Schema, mergeKey string, isDeleteList bool) ([]any, error) {
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	kind, err := elementKind(original, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if kind != mapElems {
		if isDeleteList {
			return mg.deleteFromSlice(original, patch), nil
		}
		// As in kube, append may reuse original's spare capacity: when
		// original repeats an element, deduplication then reorders it too.
		both := append(original, patch...)
		merged = mg.deduplicateScalars(both)
	} else {
		if mergeKey == "" {
			return nil, fmt.Errorf("cannot merge lists without merge key for %s", "struct")
		}
		if original, patch, err = mg.applyListDirectives(original, patch, mergeKey); err != nil {
			return nil, err
		}
		if merged, err = mg.mergeByKey(original, patch, mergeKey, items); err != nil {
			return nil, err
		}
	}
	var inPatch, serverOnly []any
	if mergeKey == "" {
		inPatch, serverOnly = mg.partitionScalars(merged, patch)
	} else if inPatch, serverOnly, err = mg.partitionMaps(merged, patch, mergeKey); err != nil {
		return nil, err
	}
	return mg.normalizeElementOrder(inPatch, serverOnly, patch, original, mergeKey, kind)
}

// applyListDirectives handles list elements carrying $patch: delete
// removes the entries with the element's key, replace makes the patch
// (without directives) the whole list. It returns the updated original and
// the patch without directive elements.
func (mg *merger) applyListDirectives(original, patch []any, mergeKey string) ([]any, []any, error) {
	plain := []any{}
	replace := false
	deleted := map[any]bool{}
	for _, v := range patch {
		m := v.(map[string]any)
		d, ok := m[directiveMarker]
		if !ok {
			plain = append(plain, v)
			continue
		}
		switch d {
		case deleteDirective:
			kv, ok := m[mergeKey]
			if !ok {
				return nil, nil, errNoMergeKey(m, mergeKey)
			}
			if isHashable(kv) {
				deleted[kv] = true
			}
		case replaceDirective:
			replace = true
		case mergeDirective:
			return nil, nil, errors.New("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, errBadPatchType(d, m)
		}
	}
	if replace {
		return plain, nil, nil
	}
	if len(deleted) > 0 {
		var err error
		if original, err = mg.deleteByKey(original, mergeKey, deleted); err != nil {
			return nil, nil, err
		}
	}
	return original, plain, nil
}

// deleteByKey removes, in place, every element of original whose key is
// one of deleted. Every element is an object (elementKind checked it).
func (mg *merger) deleteByKey(original []any, key string, deleted map[any]bool) ([]any, error) {
	out := original[:0]
	for i, v := range original {
		mg.work++
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errNotAMap(i)
		}
		if kv, ok := m[key]; ok && isHashable(kv) && deleted[kv] {
			continue
		}
		out = append(out, v)
	}
	return out, nil
}

// mergeByKey merges each patch element into the original element with the
// same key, or appends it.
func (mg *merger) mergeByKey(original, patch []any, mergeKey string, items *schema.Schema) ([]any, error) {
	ix := mg.indexByKey(original, mergeKey)
	for _, v := range patch {
		m := v.(map[string]any)
		kv, ok := m[mergeKey]
		if !ok {
			return nil, errNoMergeKey(m, mergeKey)
		}
		om, i, found, err := mg.find(ix, original, kv)
		if err != nil {
			return nil, err
		}
		if !found {
			original = append(original, v)
			ix.add(v, len(original)-1)
			continue
		}
		merged, err := mg.mergeMap(om, m, items)
		if err != nil {
			return nil, err
		}
		original[i] = merged
	}
	return original, nil
}

// deleteFromSlice removes the scalars of toDelete from current.
func (mg *merger) deleteFromSlice(current, toDelete []any) []any {
	del := mg.firstIndex(toDelete, "", scalarElems)
	out := make([]any, 0, len(current))
	for _, v := range current {
		if mg.lookup(del, v) < 0 {
			out = append(out, v)
		}
	}
	return out
}

// normalizeElementOrder sorts the patch items by patchOrder and the
// server-only items by serverOrder, then interleaves them keeping both
// relative orders, server-only items placed by their live positions.
func (mg *merger) normalizeElementOrder(patch, serverOnly, patchOrder, serverOrder []any, mergeKey string, kind elemKind) ([]any, error) {
	patch, err := mg.normalizeSliceOrder(patch, patchOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	serverOnly, err = mg.normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	return mg.mergeSortedSlice(serverOnly, patch, serverOrder, mergeKey, kind), nil
}

// normalizeSliceOrder sorts toSort by the positions of its elements in
// order, deletions last, with kube's (non-strict) comparison.
func (mg *merger) normalizeSliceOrder(toSort, order []any, mergeKey string, kind elemKind) ([]any, error) {
	var toDelete []any
	if kind == mapElems {
		if err := checkMergeKeys(mergeKey, toSort, order); err != nil {
			return nil, err
		}
		var err error
		if toSort, toDelete, err = splitDeletes(toSort); err != nil {
			return nil, err
		}
	}
	idx := mg.firstIndex(order, mergeKey, kind)
	pos := make([]int, len(toSort))
	for i, v := range toSort {
		pos[i] = mg.lookup(idx, keyOf(v, mergeKey, kind))
	}
	sort.Stable(byPosition{items: toSort, pos: pos, mg: mg})
	return append(toSort, toDelete...), nil
}

// byPosition sorts items by their positions in an order list, with kube's
// comparison: an item whose position is unknown is less than any other.
type byPosition struct {
	items []any
	pos   []int
	mg    *merger
}

func (b byPosition) Len() int { return len(b.items) }
func (b byPosition) Less(i, j int) bool {
	b.mg.work++
	if b.pos[i] >= 0 && b.pos[j] >= 0 {
		return b.pos[i] < b.pos[j]
	}
	return true
}
func (b byPosition) Swap(i, j int) {
	b.items[i], b.items[j] = b.items[j], b.items[i]
	b.pos[i], b.pos[j] = b.pos[j], b.pos[i]
}

// checkMergeKeys verifies that every element of the lists is an object
// holding the merge key.
func checkMergeKeys(mergeKey string, lists ...[]any) error {
	for _, l := range lists {
		for _, item := range l {
			m, ok := item.(map[string]any)
			if !ok {
				return errBadArgType(map[string]any(nil), item)
			}
			if _, ok := m[mergeKey]; !ok {
				return errNoMergeKey(m, mergeKey)
			}
		}
	}
	return nil
}

// mergeSortedSlice inserts the items of left into right, both already
// sorted, using their positions in serverOrder where both are known.
func (mg *merger) mergeSortedSlice(left, right, serverOrder []any, mergeKey string, kind elemKind) []any {
	idx := mg.firstIndex(serverOrder, mergeKey, kind)
	position := func(v any) int { return mg.lookup(idx, keyOf(v, mergeKey, kind)) }
	size := len(left) + len(right)
	i, j := 0, 0
	s := make([]any, size)
	for k := 0; k < size; k++ {
		switch {
		case i >= len(left) && j < len(right):
			s[k] = right[j]
			j++
		case j >= len(right) && i < len(left):
			s[k] = left[i]
			i++
		default:
			if li, ri := position(left[i]), position(right[j]); li >= 0 && ri >= 0 && li < ri {
				s[k] = left[i]
				i++
			} else {
				s[k] = right[j]
				j++
			}
		}
	}
	return s
}
