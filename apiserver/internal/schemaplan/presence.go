package schemaplan

import (
	"reflect"

	"github.com/kapi-dev/kapi/meta"
)

// A typed kind leaves an object out of its JSON form with a struct field
// tagged omitzero (a Widget without a spec has none, as kube-apiserver
// stores the custom resource): the zero value is absent, and nothing
// below it is defaulted. But decoding {} gives that zero value too, and
// kube-apiserver defaults an object a request sends, even empty ("spec":
// {} is stored as spec.replicas 1). So an object just decoded whose Go
// value holds such a zero struct on a path with defaults has the JSON it
// was decoded from looked at, as the handlers do for required fields,
// and the structs that JSON holds are defaulted then, as present.

// Hides reports whether obj holds a zero struct tagged omitzero, at the
// top or below, where the schema has defaults.
func (p *Plan) Hides(obj meta.Object) bool {
	for i := range p.Fields {
		fp := &p.Fields[i]
		if !fp.defaults {
			continue
		}
		fv := reflect.ValueOf(obj).Elem().Field(fp.index)
		if fp.absent(fv) || fp.Defaulter != nil && fp.Defaulter.Hides(fv) {
			return true
		}
	}
	return false
}

// DefaultSent defaults the fields of obj that top, its decoded JSON,
// holds as objects, telling the zero structs it holds from those it does
// not.
func (p *Plan) DefaultSent(obj meta.Object, top map[string]any) error {
	for i := range p.Fields {
		fp := &p.Fields[i]
		sent, ok := top[fp.name].(map[string]any)
		if !fp.defaults || !ok {
			continue
		}
		fv := reflect.ValueOf(obj).Elem().Field(fp.index)
		var err error
		switch {
		case fp.Defaulter != nil:
			_, err = fp.Defaulter.DefaultDecoded(fv, sent)
		case fp.absent(fv):
			// Beyond the Go plan: the zero value's JSON form is the
			// object sent, but for what decodes to zero.
			err = fp.defaultJSONForm(fv)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
