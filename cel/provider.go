package cel

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// provider declares a schema's object types to the type checker and
// leaves every other name to the environment's own provider.
type provider struct {
	types.Provider
	objects typeSet
}

func (p *provider) FindStructType(name string) (*types.Type, bool) {
	if n, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(n.typ), true
	}
	return p.Provider.FindStructType(name)
}

func (p *provider) FindStructFieldNames(name string) ([]string, bool) {
	if n, ok := p.objects[name]; ok {
		return append([]string(nil), n.order...), true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *provider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	n, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldType(name, field)
	}
	f, ok := n.fields[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: f.typ}, true
}

func (p *provider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.objects[name]; ok {
		return types.NewErr("objects of type %s cannot be created in a rule", name)
	}
	return p.Provider.NewValue(name, fields)
}
