package patch

import (
	"fmt"
	"slices"
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

// jpContainer is an object or array that an operation addresses; store
// writes a changed array back into its parent.
type jpContainer struct {
	obj   map[string]any
	arr   []any
	store func([]any)
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
	cur, ok := containerOf(p.root, func(s []any) { p.root = s })
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

func containerOf(v any, store func([]any)) (jpContainer, bool) {
	switch t := v.(type) {
	case map[string]any:
		return jpContainer{obj: t}, true
	case []any:
		return jpContainer{arr: t, store: store}, true
	}
	return jpContainer{}, false
}

// setter returns how to store a new array at key of c.
func (c jpContainer) setter(key string) func([]any) {
	if c.obj != nil {
		return func(s []any) { c.obj[key] = s }
	}
	idx, _ := c.index(key, len(c.arr))
	return func(s []any) { c.arr[idx] = s }
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
	idx, err := c.index(key, len(c.arr))
	if err != nil {
		return nil, err
	}
	if idx >= len(c.arr) {
		return nil, fmt.Errorf("Unable to access invalid index: %d: %w", idx, ErrInvalidIndex)
	}
	return c.arr[idx], nil
}

// set replaces an element known to exist.
func (c jpContainer) set(key string, v any) error {
	if c.obj != nil {
		c.obj[key] = v
		return nil
	}
	idx, err := c.index(key, len(c.arr))
	if err != nil {
		return err
	}
	c.arr[idx] = v
	return nil
}

func (c jpContainer) add(key string, v any) error {
	if c.obj != nil {
		c.obj[key] = v
		return nil
	}
	if key == "-" {
		c.store(append(c.arr, v))
		return nil
	}
	idx, err := strconv.Atoi(key)
	if err != nil {
		return fmt.Errorf("value was not a proper array index: '%s': %w", key, err)
	}
	n := len(c.arr) + 1
	if idx >= n {
		return fmt.Errorf("Unable to access invalid index: %d: %w", idx, ErrInvalidIndex)
	}
	if idx, err = c.index(key, n); err != nil {
		return err
	}
	// In place: the patcher owns every array of the document it decoded,
	// and growing by append keeps the allocations of many inserts linear.
	c.store(slices.Insert(c.arr, idx, v))
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
	if idx >= len(c.arr) {
		return fmt.Errorf("Unable to access invalid index: %d: %w", idx, ErrInvalidIndex)
	}
	if idx, err = c.index(key, len(c.arr)); err != nil {
		return err
	}
	c.store(slices.Delete(c.arr, idx, idx+1))
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
		b, err := encodeJSON(v)
		if err != nil {
			return err
		}
		p.copied += int64(len(b))
		if p.copied > p.maxCopy {
			return fmt.Errorf("Unable to complete the copy, the accumulated size increase of copy is %d, exceeding the limit %d", p.copied, p.maxCopy)
		}
		v = deepCopy(v)
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
