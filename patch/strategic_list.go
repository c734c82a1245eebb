package patch

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/kapi-dev/kapi/schema"
)

// elemKind is the kind of the elements of a list: map or scalar.
type elemKind int

const (
	scalarElems elemKind = iota
	mapElems
)

// applySetElementOrder processes the $setElementOrder/<field> directives
// of patch: it merges the named list with its patch list and orders the
// result, then removes both from patch.
func (mg *merger) applySetElementOrder(original, patch map[string]any, s *schema.Schema) error {
	for _, key := range sortedKeys(patch) {
		orderV := patch[key]
		if !strings.HasPrefix(key, setElementOrderPref) {
			continue
		}
		delete(patch, key)
		order, ok := orderV.([]any)
		if !ok {
			return errBadArgType([]any(nil), orderV)
		}
		field, err := extractKey(key, setElementOrderPref)
		if err != nil {
			return err
		}
		if err := mg.orderOneList(original, patch, field, order, s); err != nil {
			return err
		}
	}
	return nil
}

// orderOneList merges list field with its patch and sorts it by order.
func (mg *merger) orderOneList(original, patch map[string]any, field string, order []any, s *schema.Schema) error {
	origList, foundOrig := original[field]
	patchList, foundPatch := patch[field]
	var origV, patchV []any
	var ok bool
	if foundOrig {
		if origV, ok = origList.([]any); !ok {
			return errBadArgType([]any(nil), origList)
		}
	}
	if foundPatch {
		if patchV, ok = patchList.([]any); !ok {
			return errBadArgType([]any(nil), patchList)
		}
	}
	sub, pm, err := sliceMeta(s, field)
	if err != nil {
		return err
	}
	strategy, err := otherStrategy(pm.strategies)
	if err != nil {
		return err
	}
	if err := mg.checkSetOrder(patchV, order, pm.mergeKey); err != nil {
		return err
	}
	var merged []any
	switch {
	case foundOrig && !foundPatch:
		merged = origV
	case !foundOrig && foundPatch:
		v, _ := removeDirectives(patchV)
		merged = v.([]any)
	case foundOrig && foundPatch:
		if strategy == mergeDirective {
			merged, err = mg.mergeSlice(origV, patchV, sub, pm.mergeKey, false)
		} else {
			merged = patchV
		}
		if err != nil {
			return err
		}
	default:
		return nil
	}
	return mg.storeOrdered(original, patch, field, merged, order, origV, patchV, pm.mergeKey)
}

// storeOrdered sorts merged by the $setElementOrder list and stores it.
func (mg *merger) storeOrdered(original, patch map[string]any, field string, merged, order, origV, patchV []any, mergeKey string) error {
	var patchItems, serverOnly []any
	var err error
	if mergeKey == "" {
		patchItems, serverOnly = mg.partitionScalars(merged, order)
	} else if patchItems, serverOnly, err = mg.partitionMaps(merged, order, mergeKey); err != nil {
		return err
	}
	kind, err := elementKind(origV, patchV)
	if err != nil {
		return err
	}
	both, err := mg.normalizeElementOrder(patchItems, serverOnly, order, origV, mergeKey, kind)
	if err != nil {
		return err
	}
	original[field] = both
	delete(patch, field)
	return nil
}

// checkSetOrder verifies that the patch list keeps the relative order of
// the $setElementOrder list and holds nothing else, deletions aside.
func (mg *merger) checkSetOrder(patchList, order []any, mergeKey string) error {
	if len(order) == 0 || len(patchList) == 0 {
		return nil
	}
	nonDelete := patchList
	if mergeKey != "" {
		var err error
		if nonDelete, _, err = splitDeletes(patchList); err != nil {
			return err
		}
	}
	pi, oi := 0, 0
	for pi < len(nonDelete) && oi < len(order) {
		if hasDirective(nonDelete[pi]) {
			pi++
			continue
		}
		eq, err := mg.mergeKeyValueEqual(nonDelete[pi], order[oi], mergeKey)
		if err != nil {
			return err
		}
		if eq {
			pi++
		}
		oi++
	}
	if pi < len(nonDelete) && oi >= len(order) {
		return fmt.Errorf("The order in patch list:\n%v\n doesn't match %s list:\n%v\n", patchList, setElementOrderPref, order)
	}
	return nil
}

func hasDirective(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, found := m[directiveMarker]
	return found
}

func (mg *merger) mergeKeyValueEqual(left, right any, mergeKey string) (bool, error) {
	if mergeKey == "" {
		return mg.equal(left, right), nil
	}
	l, ok := left.(map[string]any)
	if !ok {
		return false, errBadArgType(map[string]any(nil), left)
	}
	r, ok := right.(map[string]any)
	if !ok {
		return false, errBadArgType(map[string]any(nil), right)
	}
	lv, ok := l[mergeKey]
	if !ok {
		return false, errNoMergeKey(l, mergeKey)
	}
	rv, ok := r[mergeKey]
	if !ok {
		return false, errNoMergeKey(r, mergeKey)
	}
	return mg.equal(lv, rv), nil
}

// safeEqual is == on decoded JSON values that never panics: objects and
// arrays are equal to nothing, as they would not be comparable.
func safeEqual(a, b any) bool {
	if !isHashable(a) || !isHashable(b) {
		return false
	}
	return a == b
}

// merger runs one strategic merge; work counts the element comparisons
// and index look-ups its list merges make, which tests bound to a linear
// or n·log n growth in the size of the lists.
type merger struct {
	work int
}

// equal is safeEqual, counted as one unit of work.
func (mg *merger) equal(a, b any) bool {
	mg.work++
	return safeEqual(a, b)
}

// splitDeletes separates {"$patch": "delete"} elements from the others.
func splitDeletes(l []any) (keep, del []any, err error) {
	for _, v := range l {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, errBadArgType(map[string]any(nil), v)
		}
		if d, found := m[directiveMarker]; found && d == deleteDirective {
			del = append(del, v)
		} else {
			keep = append(keep, v)
		}
	}
	return keep, del, nil
}

// elementKind returns the common kind of the elements of the lists.
func elementKind(lists ...[]any) (elemKind, error) {
	var prev reflect.Type
	seen := false
	for _, l := range lists {
		for _, v := range l {
			t := reflect.TypeOf(v)
			if t == nil {
				return 0, fmt.Errorf("list element types are not identical: %v", fmt.Sprint(lists))
			}
			if !seen {
				if t.Kind() == reflect.Slice {
					return 0, ErrNoListOfLists
				}
				prev, seen = t, true
			} else if t != prev {
				return 0, fmt.Errorf("list element types are not identical: %v", fmt.Sprint(lists))
			}
		}
	}
	if !seen {
		return 0, errors.New("no elements in any of the given slices")
	}
	if prev.Kind() == reflect.Map {
		return mapElems, nil
	}
	return scalarElems, nil
}

func (mg *merger) partitionScalars(list, by []any) (inPatch, serverOnly []any) {
	in := mg.firstIndex(by, "", scalarElems)
	inPatch = make([]any, 0, len(list))
	serverOnly = make([]any, 0, len(list))
	for _, v := range list {
		if mg.lookup(in, v) >= 0 {
			inPatch = append(inPatch, v)
		} else {
			serverOnly = append(serverOnly, v)
		}
	}
	return inPatch, serverOnly
}

func (mg *merger) partitionMaps(list, by []any, mergeKey string) (inPatch, serverOnly []any, err error) {
	ix := mg.indexByKey(by, mergeKey)
	inPatch = make([]any, 0, len(list))
	serverOnly = make([]any, 0, len(list))
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, errBadArgType(map[string]any(nil), v)
		}
		kv, found := m[mergeKey]
		if !found {
			return nil, nil, errNoMergeKey(m, mergeKey)
		}
		_, _, found, err := mg.find(ix, by, kv)
		if err != nil {
			return nil, nil, err
		}
		if found {
			inPatch = append(inPatch, v)
		} else {
			serverOnly = append(serverOnly, v)
		}
	}
	return inPatch, serverOnly, nil
}
