package admission

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// The type names mutations construct: Object and Object.<path> for an
// apply configuration (Object.spec{...} for the value of spec), and
// JSONPatch for one operation of a JSON patch.
const (
	objectTypeName    = "Object"
	jsonPatchTypeName = "JSONPatch"
)

var jsonPatchType = types.NewObjectType(jsonPatchTypeName)

// patchProvider declares the types of mutations on top of another
// provider. Object types have no schema: any field may be set, of any
// type; the object is checked against the kind's schema when it is
// merged, as kube-apiserver does.
type patchProvider struct {
	types.Provider
}

func isObjectTypeName(name string) bool {
	return name == objectTypeName || strings.HasPrefix(name, objectTypeName+".")
}

func (p *patchProvider) FindStructType(name string) (*types.Type, bool) {
	if name == jsonPatchTypeName || isObjectTypeName(name) {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *patchProvider) FindStructFieldNames(name string) ([]string, bool) {
	switch {
	case name == jsonPatchTypeName:
		return []string{"op", "from", "path", "value"}, true
	case isObjectTypeName(name):
		return nil, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *patchProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	switch {
	case name == jsonPatchTypeName:
		switch field {
		case "op", "from", "path":
			return &types.FieldType{Type: types.StringType}, true
		case "value":
			return &types.FieldType{Type: types.DynType}, true
		}
		// kube declares every other field, of no type: the checker
		// refuses it as a mismatch, which is kube's wording.
		return &types.FieldType{}, true
	case isObjectTypeName(name):
		return &types.FieldType{Type: types.DynType}, true
	}
	return p.Provider.FindStructFieldType(name, field)
}

func (p *patchProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	switch {
	case name == jsonPatchTypeName:
		return newJSONPatchVal(fields)
	case isObjectTypeName(name):
		return &objectVal{typeName: name, fields: fields}
	}
	return p.Provider.NewValue(name, fields)
}

// objectVal is a value of an Object type: the fields an apply
// configuration sets.
type objectVal struct {
	typeName string
	fields   map[string]ref.Val
}

var _ traits.Indexer = (*objectVal)(nil)

func (v *objectVal) ConvertToNative(t reflect.Type) (any, error) {
	if t == reflect.TypeFor[map[string]any]() {
		return v.native()
	}
	return nil, fmt.Errorf("unable to convert to %v", t)
}

func (v *objectVal) ConvertToType(t ref.Type) ref.Val {
	switch {
	case t == types.TypeType:
		return types.NewTypeTypeWithParam(types.NewObjectType(v.typeName))
	case t.TypeName() == v.typeName:
		return v
	}
	return types.NewErr("unsupported conversion into %v", t)
}

func (v *objectVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(*objectVal)
	return types.Bool(ok && o.typeName == v.typeName && reflect.DeepEqual(v.fields, o.fields))
}

func (v *objectVal) Type() ref.Type { return types.NewObjectType(v.typeName) }
func (v *objectVal) Value() any     { return v }

func (v *objectVal) Get(field ref.Val) ref.Val {
	name, ok := field.(types.String)
	if !ok {
		return types.NewErr("no such key: %v", field)
	}
	f, ok := v.fields[string(name)]
	if !ok {
		return types.NewErr("no such key: %v", field)
	}
	return f
}

func (v *objectVal) IsSet(field ref.Val) ref.Val {
	name, ok := field.(types.String)
	if !ok {
		return types.False
	}
	_, set := v.fields[string(name)]
	return types.Bool(set)
}

// native is the JSON form of the object.
func (v *objectVal) native() (map[string]any, error) {
	out := make(map[string]any, len(v.fields))
	for _, k := range sortedKeys(v.fields) {
		n, err := toNative(v.fields[k])
		if err != nil {
			return nil, fmt.Errorf("fail to convert field %q: %w", k, err)
		}
		out[k] = n
	}
	return out, nil
}

// checkTypeNames reports Object values whose type name is not the path
// of field names that leads to them from the root (Object.spec under
// spec, Object.spec.ports for the items of spec.ports), as kube-apiserver
// requires of an apply configuration.
func checkTypeNames(v ref.Val, path string) []error {
	var errs []error
	switch x := v.(type) {
	case *objectVal:
		if x.typeName != path {
			errs = append(errs, fmt.Errorf("unexpected type name %q, expected %q, which matches field name path from root Object type", x.typeName, path))
		}
		for _, k := range sortedKeys(x.fields) {
			errs = append(errs, checkTypeNames(x.fields[k], path+"."+k)...)
		}
	case traits.Mapper:
		for it := x.Iterator(); it.HasNext() == types.True; {
			errs = append(errs, checkTypeNames(x.Get(it.Next()), path)...)
		}
	case traits.Lister:
		for it := x.Iterator(); it.HasNext() == types.True; {
			errs = append(errs, checkTypeNames(it.Next(), path)...)
		}
	}
	return errs
}

// typeNameError joins the errors of checkTypeNames, nil for none.
func typeNameError(v ref.Val, root string) error {
	return errors.Join(checkTypeNames(v, root)...)
}

func sortedKeys(m map[string]ref.Val) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// toNative converts a CEL value to its JSON form: maps with string keys,
// lists, strings, int64, float64, bool and nil.
func toNative(v ref.Val) (any, error) {
	switch x := v.(type) {
	case *objectVal:
		return x.native()
	case *jsonPatchVal:
		return nil, errors.New("a JSONPatch is not a JSON value")
	case types.Null:
		return nil, nil
	case types.Bool:
		return bool(x), nil
	case types.Int:
		return int64(x), nil
	case types.Uint:
		return int64(x), nil
	case types.Double:
		return float64(x), nil
	case types.String:
		return string(x), nil
	case types.Bytes, types.Timestamp, types.Duration:
		s := x.ConvertToType(types.StringType)
		if types.IsError(s) {
			return nil, fmt.Errorf("%v", s)
		}
		return string(s.(types.String)), nil
	case traits.Mapper:
		return mapToNative(x)
	case traits.Lister:
		out := []any{}
		for it := x.Iterator(); it.HasNext() == types.True; {
			n, err := toNative(it.Next())
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	}
	if types.IsError(v) {
		return nil, fmt.Errorf("%v", v)
	}
	return nil, fmt.Errorf("unsupported value of type %v", v.Type())
}

func mapToNative(m traits.Mapper) (map[string]any, error) {
	out := map[string]any{}
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		key, ok := k.(types.String)
		if !ok {
			return nil, fmt.Errorf("map key %q is of type %v, not string", k, k.Type())
		}
		n, err := toNative(m.Get(k))
		if err != nil {
			return nil, err
		}
		out[string(key)] = n
	}
	return out, nil
}

// jsonPatchVal is one JSON patch operation.
type jsonPatchVal struct {
	op, from, path string
	value          ref.Val // nil when unset
}

func newJSONPatchVal(fields map[string]ref.Val) ref.Val {
	p := &jsonPatchVal{}
	for name, v := range fields {
		var dst *string
		switch name {
		case "op":
			dst = &p.op
		case "path":
			dst = &p.path
		case "from":
			dst = &p.from
		case "value":
			p.value = v
			continue
		default:
			return types.NewErr("unexpected JSONPatchType field: %s", name)
		}
		s, ok := v.(types.String)
		if !ok {
			return types.NewErr("unexpected type %T for JSONPatchType '%s' field", v.Value(), name)
		}
		*dst = string(s)
	}
	return p
}

func (p *jsonPatchVal) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("cannot convert to native type: %v", t)
}

func (p *jsonPatchVal) ConvertToType(t ref.Type) ref.Val {
	switch {
	case t == types.TypeType:
		return types.NewTypeTypeWithParam(jsonPatchType)
	case t.TypeName() == jsonPatchTypeName:
		return p
	}
	return types.NewErr("unsupported type: %s", t.TypeName())
}

func (p *jsonPatchVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(*jsonPatchVal)
	if !ok || p.op != o.op || p.from != o.from || p.path != o.path || (p.value == nil) != (o.value == nil) {
		return types.False
	}
	if p.value == nil {
		return types.True
	}
	return p.value.Equal(o.value)
}

func (p *jsonPatchVal) Type() ref.Type { return jsonPatchType }
func (p *jsonPatchVal) Value() any     { return p }

func (p *jsonPatchVal) Get(field ref.Val) ref.Val {
	switch field {
	case types.String("op"):
		return types.String(p.op)
	case types.String("path"):
		return types.String(p.path)
	case types.String("from"):
		return types.String(p.from)
	case types.String("value"):
		if p.value != nil {
			return p.value
		}
	}
	return types.NewErr("unsupported indexer: %s", field)
}

func (p *jsonPatchVal) IsSet(field ref.Val) ref.Val {
	switch field {
	case types.String("op"):
		return types.Bool(p.op != "")
	case types.String("path"):
		return types.Bool(p.path != "")
	case types.String("from"):
		return types.Bool(p.from != "")
	case types.String("value"):
		return types.Bool(p.value != nil)
	}
	return types.NewErr("unsupported field: %s", field)
}

// jsonPointerEscaper writes a key as a JSON pointer does (RFC 6901).
var jsonPointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// jsonPatchLib declares jsonpatch.escapeKey.
func jsonPatchLib() cel.EnvOption {
	return cel.Function("jsonpatch.escapeKey",
		cel.Overload("string_jsonpatch_escapeKey_string", []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(arg ref.Val) ref.Val {
				s, ok := arg.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(arg)
				}
				return types.String(jsonPointerEscaper.Replace(string(s)))
			})))
}
