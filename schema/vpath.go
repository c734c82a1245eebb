package schema

import "github.com/kapi-dev/kapi/status"

// vpath is where the validator is in a value: the steps from the root,
// pushed and popped as the validator descends, made into a status.Path
// only when a check fails. Building every field's path as it went cost
// an allocation per field of every object validated.
type vpath struct {
	root  status.Path // where the value sits in its object
	steps []step
	buf   [8]step
}

// step is a field (index < 0) or a list item.
type step struct {
	field string
	index int
}

func newPath(root status.Path) *vpath {
	p := &vpath{root: root}
	p.steps = p.buf[:0]
	return p
}

func (p *vpath) push(field string, index int) { p.steps = append(p.steps, step{field, index}) }
func (p *vpath) pop()                         { p.steps = p.steps[:len(p.steps)-1] }

// path renders p.
func (p *vpath) path() status.Path {
	q := p.root
	for _, s := range p.steps {
		if s.index >= 0 {
			q = q.Index(s.index)
		} else {
			q = q.Child(s.field)
		}
	}
	return q
}

// childPath is the path of field name below p.
func (p *vpath) childPath(name string) status.Path { return p.path().Child(name) }

// itemPath is the path of list item i below p.
func (p *vpath) itemPath(i int) status.Path { return p.path().Index(i) }
