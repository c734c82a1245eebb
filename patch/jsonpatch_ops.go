package patch

import (
	"fmt"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// jsonPatcher applies JSON patch operations to a decoded document.
type jsonPatcher struct {
	root    any
	copied  int64
	maxCopy int64
}

// jpContainer is an object or array (a slice, or a seq once edited in
// its middle) that an operation addresses; store writes a changed or
// converted array back into its parent.
type jpContainer struct {
	obj   map[string]any
	arr   []any
	seq   *seq
	store func(any)
}

var pointerDecoder = strings.NewReplacer("~1", "/", "~0", "~")

// opValue decodes the operation's value; a missing value is null.
func opValue(op jsonpatch.Operation) (v any, present bool, err error) {
	raw, ok := op["value"]
	if !ok {
		return nil, false, nil
	}
	if raw == nil {
		return nil, true, nil
	}
	v, err = decodeJSON([]byte(*raw))
	return v, true, err
}

// find resolves all but the last token of path, returning the container
// and the last token. Like the v4 library, it needs at least one "/" and
// ignores what precedes the first one.
func (p *jsonPatcher) find(path string) (jpContainer, string, bool) {
	split := strings.Split(path, "/")
	if len(split) < 2 {
		return jpContainer{}, "", false
	}
	cur, ok := containerOf(p.root, func(s any) { p.root = s })
	if !ok {
		return jpContainer{}, "", false
	}
	for _, part := range split[1 : len(split)-1] {
		key := pointerDecoder.Replace(part)
		next, err := cur.get(key)
		if err != nil || next == nil {
			return jpContainer{}, "", false
		}
		if cur, ok = containerOf(next, cur.setter(key)); !ok {
			return jpContainer{}, "", false
		}
	}
	return cur, pointerDecoder.Replace(split[len(split)-1]), true
}

func containerOf(v any, store func(any)) (jpContainer, bool) {
	switch t := v.(type) {
	case map[string]any:
		return jpContainer{obj: t}, true
	case []any:
		return jpContainer{arr: t, store: store}, true
	case *seq:
		return jpContainer{seq: t, store: store}, true
	}
	return jpContainer{}, false
}

// length is the number of elements of an array container.
func (c jpContainer) length() int {
	if c.seq != nil {
		return c.seq.len()
	}
	return len(c.arr)
}

// setter returns how to store a new array at key of c.
func (c jpContainer) setter(key string) func(any) {
	if c.obj != nil {
		return func(s any) { c.obj[key] = s }
	}
	idx, _ := c.index(key, c.length())
	if c.seq != nil {
		return func(s any) { c.seq.node(idx).val = s }
	}
	return func(s any) { c.arr[idx] = s }
}

// edited returns c's elements as a seq, converting (and storing) a slice
// the first time it is edited other than at its end.
func (c jpContainer) edited() *seq {
	if c.seq == nil {
		c.seq = seqFrom(c.arr)
		c.store(c.seq)
	}
	return c.seq
}

// index parses an array index; negative ones count from the end of a list
// of length n.
func (c jpContainer) index(key string, n int) (int, error) {
	idx, err := strconv.Atoi(key)
	if err != nil {
		return 0, err
	}
	if idx < 0 {
		if idx < -n {
			return 0, fmt.Errorf("Unable to access invalid index: %d: %w", idx, ErrInvalidIndex)
		}
		idx += n
	}
	return idx, nil
}

func (c jpContainer) get(key string) (any, error) {
	if c.obj != nil {
		return c.obj[key], nil
	}
	idx, err := c.index(key, c.length())
	if err != nil {
		return nil, err
	}
	if idx >= c.length() {
		return nil, fmt.Errorf("Unable to access invalid index: %d: %w", idx, ErrInvalidIndex)
	}
	if c.seq != nil {
		return c.seq.node(idx).val, nil
	}
	return c.arr[idx], nil
}

// set replaces an element known to exist.
func (c jpContainer) set(key string, v any) error {
	if c.obj != nil {
		c.obj[key] = v
		return nil
	}
	idx, err := c.index(key, c.length())
	if err != nil {
		return err
	}
	if c.seq != nil {
		c.seq.node(idx).val = v
		return nil
	}
	c.arr[idx] = v
	return nil
}

func (c jpContainer) add(key string, v any) error {
	if c.obj != nil {
		c.obj[key] = v
		return nil
	}
	idx := c.length()
	if key != "-" {
		var err error
		if idx, err = strconv.Atoi(key); err != nil {
			return fmt.Errorf("value was not a proper array index: '%s': %w", key, err)
		}
		n := c.length() + 1
		if idx >= n {
			return fmt.Errorf("Unable to access invalid index: %d: %w", idx, ErrInvalidIndex)
		}
		if idx, err = c.index(key, n); err != nil {
			return err
		}
	}
	switch {
	case c.seq != nil:
		c.seq.insert(idx, v)
	case idx == len(c.arr):
		// In place: the patcher owns every array of the document it
		// decoded, and growing by append keeps many appends linear.
		c.store(append(c.arr, v))
	default:
		c.edited().insert(idx, v)
	}
	return nil
}

func (c jpContainer) remove(key string) error {
	if c.obj != nil {
		if _, ok := c.obj[key]; !ok {
			return fmt.Errorf("Unable to remove nonexistent key: %s: %w", key, ErrMissing)
		}
		delete(c.obj, key)
		return nil
	}
	idx, err := strconv.Atoi(key)
	if err != nil {
		return err
	}
	if idx >= c.length() {
		return fmt.Errorf("Unable to access invalid index: %d: %w", idx, ErrInvalidIndex)
	}
	if idx, err = c.index(key, c.length()); err != nil {
		return err
	}
	switch {
	case c.seq != nil:
		c.seq.delete(idx)
	case idx == len(c.arr)-1:
		c.store(c.arr[:idx])
	default:
		c.edited().delete(idx)
	}
	return nil
}

func (p *jsonPatcher) add(op jsonpatch.Operation) error {
	path, err := op.Path()
	if err != nil {
		return fmt.Errorf("add operation failed to decode path: %w", ErrMissing)
	}
	c, key, ok := p.find(path)
	if !ok {
		return fmt.Errorf("add operation does not apply: doc is missing path: %q: %w", path, ErrMissing)
	}
	v, _, err := opValue(op)
	if err != nil {
		return err
	}
	if err := c.add(key, v); err != nil {
		return fmt.Errorf("error in add for path: '%s': %w", path, err)
	}
	return nil
}

func (p *jsonPatcher) remove(op jsonpatch.Operation) error {
	path, err := op.Path()
	if err != nil {
		return fmt.Errorf("remove operation failed to decode path: %w", ErrMissing)
	}
	c, key, ok := p.find(path)
	if !ok {
		return fmt.Errorf("remove operation does not apply: doc is missing path: %q: %w", path, ErrMissing)
	}
	if err := c.remove(key); err != nil {
		return fmt.Errorf("error in remove for path: '%s': %w", path, err)
	}
	return nil
}

func (p *jsonPatcher) replace(op jsonpatch.Operation) error {
	path, err := op.Path()
	if err != nil {
		return fmt.Errorf("replace operation failed to decode path: %w", err)
	}
	v, present, err := opValue(op)
	if err != nil {
		return err
	}
	if path == "" {
		switch v.(type) {
		case map[string]any, []any:
			p.root = v
			return nil
		}
		if !present {
			// The v4 library dereferences nil here; kube answers 500.
			return internal(fmt.Errorf("replace operation of the whole document has no value"))
		}
		return fmt.Errorf("replace operation value must be object or array")
	}
	c, key, ok := p.find(path)
	if !ok {
		return fmt.Errorf("replace operation does not apply: doc is missing path: %s: %w", path, ErrMissing)
	}
	if _, err := c.get(key); err != nil {
		return fmt.Errorf("replace operation does not apply: doc is missing key: %s: %w", path, ErrMissing)
	}
	return c.set(key, v)
}

func (p *jsonPatcher) move(op jsonpatch.Operation) error {
	from, err := op.From()
	if err != nil {
		return fmt.Errorf("move operation failed to decode from: %w", err)
	}
	c, key, ok := p.find(from)
	if !ok {
		return fmt.Errorf("move operation does not apply: doc is missing from path: %s: %w", from, ErrMissing)
	}
	v, err := c.get(key)
	if err != nil {
		return fmt.Errorf("error in move for path: '%s': %w", key, err)
	}
	if err := c.remove(key); err != nil {
		return fmt.Errorf("error in move for path: '%s': %w", key, err)
	}
	path, err := op.Path()
	if err != nil {
		return fmt.Errorf("move operation failed to decode path: %w", err)
	}
	if c, key, ok = p.find(path); !ok {
		return fmt.Errorf("move operation does not apply: doc is missing destination path: %s: %w", path, ErrMissing)
	}
	return c.add(key, v)
}

func (p *jsonPatcher) copy(op jsonpatch.Operation) error {
	from, err := op.From()
	if err != nil {
		return fmt.Errorf("copy operation failed to decode from: %w", err)
	}
	c, key, ok := p.find(from)
	if !ok {
		return fmt.Errorf("copy operation does not apply: doc is missing from path: %s: %w", from, ErrMissing)
	}
	v, err := c.get(key)
	if err != nil {
		return fmt.Errorf("error in copy for from: '%s': %w", from, err)
	}
	path, err := op.Path()
	if err != nil {
		return fmt.Errorf("copy operation failed to decode path: %w", ErrMissing)
	}
	if c, key, ok = p.find(path); !ok {
		return fmt.Errorf("copy operation does not apply: doc is missing destination path: %s: %w", path, ErrMissing)
	}
	if v != nil {
		v = plainCopy(v)
		b, err := encodeJSON(v)
		if err != nil {
			return err
		}
		p.copied += int64(len(b))
		if p.copied > p.maxCopy {
			return fmt.Errorf("Unable to complete the copy, the accumulated size increase of copy is %d, exceeding the limit %d", p.copied, p.maxCopy)
		}
	}
	return c.add(key, v)
}

func (p *jsonPatcher) test(op jsonpatch.Operation) error {
	path, err := op.Path()
	if err != nil {
		return fmt.Errorf("test operation failed to decode path: %w", err)
	}
	want, present, err := opValue(op)
	if err != nil {
		return err
	}
	var got any
	if path == "" {
		if !present {
			return internal(fmt.Errorf("test operation of the whole document has no value"))
		}
		got = p.root
	} else {
		c, key, ok := p.find(path)
		if !ok {
			return fmt.Errorf("test operation does not apply: is missing path: %s: %w", path, ErrMissing)
		}
		if got, err = c.get(key); err != nil {
			return fmt.Errorf("error in test for path: '%s': %w", path, err)
		}
		if got == nil && want == nil {
			return nil
		}
	}
	if !present || !strictEqual(got, want) {
		return fmt.Errorf("testing value %s failed: %w", path, ErrTestFailed)
	}
	return nil
}

// strictEqual compares decoded JSON values structurally; numbers are equal
// only when written alike (int64 with int64, float64 with float64), as the
// library compares their text.
func strictEqual(a, b any) bool {
	if s, ok := a.(*seq); ok {
		a = s.slice()
	}
	if s, ok := b.(*seq); ok {
		b = s.slice()
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !strictEqual(v, w) {
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
			if !strictEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return safeEqual(a, b)
}
