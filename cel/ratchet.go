package cel

// corr pairs a value with its old counterpart and remembers whether they
// are equal once asked.
type corr struct {
	new, old any
	hasOld   bool
	eq       int8 // 0 unknown, 1 equal, -1 different
}

func (c *corr) equal() bool {
	if c == nil {
		return false
	}
	if c.eq == 0 {
		c.eq = -1
		if c.hasOld && jsonEqual(c.new, c.old) {
			c.eq = 1
		}
	}
	return c.eq == 1
}

// ratchet tracks, down the tree, the value being validated and its
// nearest ancestor that correlates with an old value: the errors of a
// value that did not change (or that sits in an unchanged ancestor where
// no correlation is possible) are let through as warnings.
type ratchet struct {
	cur    *corr // nil where the value does not correlate
	parent *corr
}

func (r ratchet) unchanged() bool {
	if r.cur != nil {
		return r.cur.equal()
	}
	return r.parent.equal()
}

func (r ratchet) key(_ string, x, old any, hasOld bool) ratchet {
	if r.cur == nil {
		return r
	}
	if !hasOld {
		return ratchet{parent: r.cur}
	}
	return ratchet{cur: &corr{new: x, old: old, hasOld: true}, parent: r.cur}
}

func (r ratchet) index(x, old any, hasOld, correlates bool) ratchet {
	if r.cur == nil {
		return r
	}
	if !correlates || !hasOld {
		return ratchet{parent: r.cur}
	}
	return ratchet{cur: &corr{new: x, old: old, hasOld: true}, parent: r.cur}
}

// jsonEqual compares decoded JSON values.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		}
		return false
	case float64:
		switch y := b.(type) {
		case int64:
			return x == float64(y)
		case float64:
			return x == y
		}
		return false
	}
	return a == b
}
