package patch

import (
	"errors"
	"fmt"
	"sort"

	"github.com/kapi-dev/kapi/schema"
)

// mergeSlice merges a patch list into a list with the merge strategy; a
// delete list ($deleteFromPrimitiveList) removes its scalars instead.
func mergeSlice(original, patch []any, items *schema.Schema, mergeKey string, isDeleteList bool) ([]any, error) {
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
			return deleteFromSlice(original, patch), nil
		}
		// As in kube, append may reuse original's spare capacity: when
		// original repeats an element, deduplication then reorders it too.
		both := append(original, patch...)
		merged = deduplicateScalars(both)
	} else {
		if mergeKey == "" {
			return nil, fmt.Errorf("cannot merge lists without merge key for %s", "struct")
		}
		if original, patch, err = applyListDirectives(original, patch, mergeKey); err != nil {
			return nil, err
		}
		if merged, err = mergeByKey(original, patch, mergeKey, items); err != nil {
			return nil, err
		}
	}
	var inPatch, serverOnly []any
	if mergeKey == "" {
		inPatch, serverOnly = partitionScalars(merged, patch)
	} else if inPatch, serverOnly, err = partitionMaps(merged, patch, mergeKey); err != nil {
		return nil, err
	}
	return normalizeElementOrder(inPatch, serverOnly, patch, original, mergeKey, kind)
}

// applyListDirectives handles list elements carrying $patch: delete
// removes the entries with the element's key, replace makes the patch
// (without directives) the whole list. It returns the updated original and
// the patch without directive elements.
func applyListDirectives(original, patch []any, mergeKey string) ([]any, []any, error) {
	plain := []any{}
	replace := false
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
			var err error
			if original, err = deleteByKey(original, mergeKey, kv); err != nil {
				return nil, nil, err
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
	return original, plain, nil
}

// deleteByKey removes every element of original whose key equals value.
func deleteByKey(original []any, key string, value any) ([]any, error) {
	for {
		_, i, found, err := findByKey(original, key, value)
		if err != nil {
			return nil, err
		}
		if !found {
			return original, nil
		}
		original = append(original[:i], original[i+1:]...)
	}
}

// mergeByKey merges each patch element into the original element with the
// same key, or appends it.
func mergeByKey(original, patch []any, mergeKey string, items *schema.Schema) ([]any, error) {
	for _, v := range patch {
		m := v.(map[string]any)
		kv, ok := m[mergeKey]
		if !ok {
			return nil, errNoMergeKey(m, mergeKey)
		}
		om, i, found, err := findByKey(original, mergeKey, kv)
		if err != nil {
			return nil, err
		}
		if !found {
			original = append(original, v)
			continue
		}
		merged, err := mergeMap(om, m, items)
		if err != nil {
			return nil, err
		}
		original[i] = merged
	}
	return original, nil
}

// deleteFromSlice removes the scalars of toDelete from current.
func deleteFromSlice(current, toDelete []any) []any {
	out := make([]any, 0, len(current))
	for _, v := range current {
		if !containsScalar(toDelete, v) {
			out = append(out, v)
		}
	}
	return out
}

// deduplicateScalars removes repeated scalars in place with kube's
// algorithm, which moves the last element into each duplicate's slot.
func deduplicateScalars(s []any) []any {
	length := len(s) - 1
	for i := 0; i < length; i++ {
		for j := i + 1; j <= length; j++ {
			if safeEqual(s[i], s[j]) {
				s[j] = s[length]
				s = s[0:length]
				length--
				j--
			}
		}
	}
	return s
}

// normalizeElementOrder sorts the patch items by patchOrder and the
// server-only items by serverOrder, then interleaves them keeping both
// relative orders, server-only items placed by their live positions.
func normalizeElementOrder(patch, serverOnly, patchOrder, serverOrder []any, mergeKey string, kind elemKind) ([]any, error) {
	patch, err := normalizeSliceOrder(patch, patchOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	serverOnly, err = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	return mergeSortedSlice(serverOnly, patch, serverOrder, mergeKey, kind), nil
}

// normalizeSliceOrder sorts toSort by the positions of its elements in
// order, deletions last, with kube's (non-strict) comparison.
func normalizeSliceOrder(toSort, order []any, mergeKey string, kind elemKind) ([]any, error) {
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
	sort.SliceStable(toSort, func(i, j int) bool {
		if ii := indexOf(order, toSort[i], mergeKey, kind); ii >= 0 {
			if ij := indexOf(order, toSort[j], mergeKey, kind); ij >= 0 {
				return ii < ij
			}
		}
		return true
	})
	return append(toSort, toDelete...), nil
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
func mergeSortedSlice(left, right, serverOrder []any, mergeKey string, kind elemKind) []any {
	less := func(l, r any) (bool, bool) {
		li := indexOf(serverOrder, l, mergeKey, kind)
		ri := indexOf(serverOrder, r, mergeKey, kind)
		if li >= 0 && ri >= 0 {
			return li < ri, true
		}
		return false, false
	}
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
			if less, both := less(left[i], right[j]); both && less {
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

// indexOf returns the position of v in l, comparing objects by merge key.
func indexOf(l []any, v any, mergeKey string, kind elemKind) int {
	get := func(item any) any { return item }
	if kind == mapElems {
		get = func(item any) any {
			m, ok := item.(map[string]any)
			if !ok {
				return nil
			}
			return m[mergeKey]
		}
	}
	want := get(v)
	for i, e := range l {
		if safeEqual(want, get(e)) {
			return i
		}
	}
	return -1
}
