package apiserver

import (
	"reflect"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// A typed kind leaves an object out of its JSON form with a struct field
// tagged omitzero (a Widget without a spec has none, as kube-apiserver
// stores the custom resource): the zero value is absent, and nothing
// below it is defaulted. But decoding {} gives that zero value too, and
// kube-apiserver defaults an object a request sends, even empty ("spec":
// {} is stored as spec.replicas 1). So an object just decoded whose Go
// value holds such a zero struct on a path with defaults has the JSON it
// was decoded from looked at, as checkRequired does for required fields,
// and the structs that JSON holds are defaulted then, as present.

// defaultSent defaults the objects obj's Go value cannot show were sent:
// zero structs tagged omitzero that body, the JSON obj was just decoded
// from (see bodyJSON), holds. Defaulting again later changes nothing
// more, and an object not sent stays absent.
func (h *handler) defaultSent(obj meta.Object, body func() (any, error)) error {
	p := h.r.plan
	if p == nil || p.unstructured || !p.hides(obj) {
		return nil
	}
	x, err := body()
	if err != nil {
		return status.BadRequest(decodeErrorMessage(err))
	}
	top, ok := x.(map[string]any)
	if !ok {
		return nil // an encoding that cannot tell (protobuf)
	}
	if err := p.defaultSent(obj, top); err != nil {
		return status.InternalError(err)
	}
	return nil
}

// hides reports whether obj holds a zero struct tagged omitzero, at the
// top or below, where the schema has defaults.
func (p *schemaPlan) hides(obj meta.Object) bool {
	for i := range p.fields {
		fp := &p.fields[i]
		if !fp.defaults {
			continue
		}
		fv := reflect.ValueOf(obj).Elem().Field(fp.index)
		if fp.absent(fv) || fp.defaulter != nil && fp.defaulter.Hides(fv) {
			return true
		}
	}
	return false
}

// defaultSent defaults the fields of obj that top, its decoded JSON,
// holds as objects, telling the zero structs it holds from those it does
// not.
func (p *schemaPlan) defaultSent(obj meta.Object, top map[string]any) error {
	for i := range p.fields {
		fp := &p.fields[i]
		sent, ok := top[fp.name].(map[string]any)
		if !fp.defaults || !ok {
			continue
		}
		fv := reflect.ValueOf(obj).Elem().Field(fp.index)
		var err error
		switch {
		case fp.defaulter != nil:
			_, err = fp.defaulter.DefaultDecoded(fv, sent)
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
