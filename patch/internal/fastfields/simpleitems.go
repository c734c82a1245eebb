package fastfields

import (
	"cmp"
	"slices"
	"strconv"

	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// Most associative lists name their entries by strings (a name, a type)
// or integers (a port): sorting and writing those names needs no path
// elements, which take allocations for every entry.

// simpleItems writes the entries of an associative list as items does,
// when every entry is named by plain strings or by integers, one of the
// two for each key across the list; handled is false for other lists,
// which items writes.
func (w *jsonWalker) simpleItems(t *smd.List, list []any) (wrote, handled, ok bool) {
	names := t.Keys
	if len(names) > 1 {
		names = slices.Sorted(slices.Values(names))
	}
	width := max(len(names), 1)
	var smallVals [16]any // most lists: no allocation
	vals := smallVals[:0]
	if n := len(list) * width; n <= len(smallVals) {
		vals = smallVals[:n]
	} else {
		vals = make([]any, n)
	}
	for i, item := range list {
		if !simpleName(t, names, item, vals[i*width:(i+1)*width]) {
			return false, false, true
		}
	}
	for k := range width {
		_, str := vals[k].(string)
		for i := 1; i < len(list); i++ {
			if _, s := vals[i*width+k].(string); s != str {
				return false, false, true
			}
		}
	}
	var smallOrder [16]int
	order := smallOrder[:0]
	if len(list) <= len(smallOrder) {
		order = smallOrder[:len(list)]
	} else {
		order = make([]int, len(list))
	}
	for i := range order {
		order[i] = i
	}
	name := func(i int) []any { return vals[i*width : (i+1)*width] }
	slices.SortFunc(order, func(a, b int) int { return compareNames(name(a), name(b)) })
	for i := 1; i < len(order); i++ {
		if compareNames(name(order[i-1]), name(order[i])) == 0 {
			return false, false, true // duplicates: items declines them
		}
	}
	for _, at := range order {
		if wrote {
			w.buf = append(w.buf, ',')
		}
		w.simpleKey(names, name(at))
		w.buf = append(w.buf, ':', '{')
		if _, ok := w.node(list[at], t.ElementType, true, nil, nil); !ok {
			return false, true, false
		}
		w.buf = append(w.buf, '}')
		wrote = true
	}
	return wrote, true, true
}

// simpleName puts the name of a list entry in into: the values of its
// keys, in key name order, or its value in a set. It reports whether each
// is a plain string or an integer.
func simpleName(t *smd.List, names []string, item any, into []any) bool {
	if len(names) == 0 {
		into[0] = item
		return simpleValue(item)
	}
	obj, ok := item.(map[string]any)
	if !ok {
		return false
	}
	for i, k := range names {
		v, ok := obj[k]
		if !ok || !simpleValue(v) || !plainString(k) {
			return false
		}
		into[i] = v
	}
	return true
}

func simpleValue(v any) bool {
	switch t := v.(type) {
	case string:
		return plainString(t)
	case int64:
		return true
	}
	return false
}

// compareNames orders two names as their path elements order, for names
// whose values have the same type key by key.
func compareNames(a, b []any) int {
	for i := range a {
		var c int
		switch x := a[i].(type) {
		case string:
			c = cmp.Compare(x, b[i].(string))
		case int64:
			c = cmp.Compare(x, b[i].(int64))
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// simpleKey writes the key of an entry named by vals, as itemKey does.
func (w *jsonWalker) simpleKey(names []string, vals []any) {
	if len(names) == 0 {
		w.buf = append(w.buf, `"v:`...)
		w.simpleValue(vals[0])
		w.buf = append(w.buf, '"')
		return
	}
	w.buf = append(w.buf, `"k:{`...)
	for i, k := range names {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, `\"`...)
		w.buf = append(w.buf, k...)
		w.buf = append(w.buf, `\":`...)
		w.simpleValue(vals[i])
	}
	w.buf = append(w.buf, `}"`...)
}

func (w *jsonWalker) simpleValue(v any) {
	switch t := v.(type) {
	case string:
		w.buf = append(w.buf, `\"`...)
		w.buf = append(w.buf, t...)
		w.buf = append(w.buf, `\"`...)
	case int64:
		w.buf = strconv.AppendInt(w.buf, t, 10)
	}
}
