package registry

import (
	"fmt"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/meta"
)

// AdmissionVersions is r's kind in its served versions, for admission
// that sees objects in a version of its own (admission.Request.Versions).
func (r *Resource) AdmissionVersions() admission.Versions { return admissionVersions{r} }

type admissionVersions struct{ r *Resource }

func (v admissionVersions) Served() []string {
	if vs := v.r.Versions; vs != nil {
		return vs.served
	}
	return []string{v.r.Kind.Version}
}

func (v admissionVersions) Convert(obj meta.Object, version string) (meta.Object, error) {
	r := v.r
	to := meta.GroupVersion{Group: r.Kind.Group, Version: version}.String()
	tm := obj.GetTypeMeta()
	if tm.APIVersion == "" {
		// Objects in admission are in the request's version, which a
		// typed object decoded from protobuf may not state.
		tm.APIVersion, tm.Kind = r.APIVersion, r.Kind.Kind
	}
	if tm.APIVersion == to {
		return obj, nil
	}
	if r.Versions == nil {
		return nil, fmt.Errorf("%s is not served in %s", r.Kind.Kind, to)
	}
	return r.Versions.Convert(obj, to)
}

func (v admissionVersions) New(version string) meta.Object {
	r := v.r
	if vs := r.Versions; vs != nil {
		if info := vs.byAPI[meta.GroupVersion{Group: r.Kind.Group, Version: version}.String()]; info != nil {
			return info.new()
		}
		return nil
	}
	if version != r.Kind.Version {
		return nil
	}
	return r.Kind.New()
}
