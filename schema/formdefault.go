package schema

import "sort"

// FormDefaulter applies a schema's defaults to decoded JSON values that
// hold no null anywhere, with the outcome of [Schema.ApplyDefaults], but
// visiting only the paths that carry defaults: without nulls, nothing
// else can change. A value with a null must be given to ApplyDefaults,
// which drops or defaults it.
//
// Build one per schema with [NewFormDefaulter], at registration; it is
// safe for concurrent use and does not change the schema.
type FormDefaulter struct {
	root *fdnode // nil: nothing to default
	// cyclic is the schema, when it contains itself: its values are
	// defaulted by ApplyDefaults.
	cyclic *Schema
}

// fdnode is the plan of a value with defaults at or below its members.
type fdnode struct {
	// defaults are the properties with a default of their own, filled
	// in when missing.
	defaults []fdprop
	// below are the properties with defaults below them, in name order,
	// defaulted when present.
	below []fdprop
	// named holds the declared property names, when additional is set.
	named map[string]bool
	// additional is the plan of additional properties, nil when they
	// carry no defaults.
	additional *fdnode
	// items is the plan of array items, nil when they carry none.
	items *fdnode
}

type fdprop struct {
	name   string
	schema *Schema
	node   *fdnode
}

// NewFormDefaulter returns the FormDefaulter of s.
func NewFormDefaulter(s *Schema) *FormDefaulter {
	p := formPlanner{open: map[*Schema]bool{}}
	root := p.plan(s)
	if p.cyclic {
		return &FormDefaulter{cyclic: s}
	}
	return &FormDefaulter{root: root}
}

// formPlanner plans a schema's defaults. open holds the schemas being
// planned, and cyclic is set when one contains itself.
type formPlanner struct {
	open   map[*Schema]bool
	cyclic bool
}

// plan returns the plan of s, nil when no default is at or below its
// members.
func (fp *formPlanner) plan(s *Schema) *fdnode {
	if s == nil {
		return nil
	}
	if fp.open[s] {
		fp.cyclic = true
		return nil
	}
	fp.open[s] = true
	defer delete(fp.open, s)
	n := &fdnode{}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p := s.Properties[k]
		if p.Default != nil {
			n.defaults = append(n.defaults, fdprop{name: k, schema: p})
		}
		if c := fp.plan(p); c != nil {
			n.below = append(n.below, fdprop{name: k, schema: p, node: c})
		}
	}
	if n.additional = fp.plan(s.AdditionalProperties); n.additional != nil {
		n.named = make(map[string]bool, len(s.Properties))
		for k := range s.Properties {
			n.named[k] = true
		}
	}
	n.items = fp.plan(s.Items)
	if len(n.defaults) == 0 && len(n.below) == 0 && n.additional == nil && n.items == nil {
		return nil
	}
	return n
}

// Apply fills in the defaults in x, which holds no null, in place, as
// ApplyDefaults does, and reports whether it changed x.
func (d *FormDefaulter) Apply(x any) bool {
	if d.cyclic != nil {
		return d.cyclic.ApplyDefaults(x)
	}
	return d.root.apply(x)
}

func (n *fdnode) apply(x any) bool {
	if n == nil {
		return false
	}
	switch t := x.(type) {
	case map[string]any:
		return n.object(t)
	case []any:
		changed := false
		for _, it := range t {
			changed = n.items.apply(it) || changed
		}
		return changed
	}
	return false
}

func (n *fdnode) object(obj map[string]any) bool {
	changed := false
	for _, p := range n.below {
		if v, present := obj[p.name]; present {
			changed = p.node.apply(v) || changed
		}
	}
	if n.additional != nil {
		for k, v := range obj {
			if !n.named[k] {
				changed = n.additional.apply(v) || changed
			}
		}
	}
	for _, p := range n.defaults {
		if _, present := obj[p.name]; !present {
			// A default may hold nulls: it is defaulted the general way.
			v := copyJSON(p.schema.Default)
			p.schema.ApplyDefaults(v)
			obj[p.name] = v
			changed = true
		}
	}
	return changed
}
