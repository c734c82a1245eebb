package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/kapi-dev/kapi/apiserver/kinds"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// How kinds of several versions are served (a floating comment: the
// package doc points here).
//
// A kind served in several versions ([Kind].Versions) is stored in one,
// its storage version, and converted on every request: Go types through
// a hub ([Hub], [Convertible]), run-time kinds by [Kind].Convert (or
// only their apiVersion changes). The versions share one watch cache of
// storage-version objects; a read converts each object to the version
// asked for once per object version and keeps the encoding, which every
// later get, list and watch in that version and media type reuses. A
// run-time kind's [Kind].Convert (a conversion webhook) converts one
// object per call, a list's objects too, as kube-apiserver sends one
// object per ConversionReview; what it converts is kept likewise.
// Values stored in an earlier storage version are read (converted) as
// they are and rewritten in the current one by their next write;
// [Server.StoredVersions] says when none is left. managedFields entries
// keep the version they were recorded in, and apply compares each
// manager's fields in its own version, so conflicts are found across
// versions. A conversion that fails is a 500 InternalError naming both
// versions, and nothing is stored.
//
// A write runs in the version of the request, as kube-apiserver runs a
// custom resource's strategy: the stored object is converted to that
// version, and the object is converted to the storage version only to
// be stored. So the schema's defaults, validation and CEL rules (with
// oldSelf, the stored object in that version) are the version's own,
// and a 422 names the version's fields (spec.count in a version that
// calls spec.replicas so). Admission sees the object, the stored one and
// [AdmissionRequest].Kind in the version of the request, on delete too,
// as kube-apiserver's in-process admission sees custom resources. The
// kind's Go hooks ([Kind].Default, Validate, PrepareForCreate,
// PrepareForUpdate, PrepareForStatusUpdate, Canonicalize, Finalize,
// Deletion and SelectableFields) are written against one Go type and
// see objects in the storage version, converted to it and, for the
// hooks that change the object, back; the field
// paths of Validate's errors are the storage version's, so a check whose
// paths differ between versions belongs in each version's schema (its
// bounds or x-kubernetes-validations). Field selectors on a version with
// selectable fields of its own ([KindVersion].SelectableFields, as each
// version of a CustomResourceDefinition declares) read them from objects
// in that version. metadata.generation compares the object with the
// stored one in the version of the request: a spec change through any
// version bumps it once, a status write does not.
//

// VersionSet is what the served versions of a kind share: how to make,
// decode and convert an object of each of its versions.
type VersionSet struct {
	group, kind string
	storage     *versionInfo
	preferred   string // the served version discovery prefers
	served      []string
	byAPI       map[string]*versionInfo
	convertFn   kinds.ConvertFunc // run-time kinds; nil: apiVersion only
	hub         reflect.Type
}

// versionInfo is one version of a kind.
type versionInfo struct {
	name, APIVersion string
	new              func() meta.Object
	typ              reflect.Type
	schema           *schema.Schema
	// ownFields is set when the version's SelectableFields are its own
	// (KindVersion.SelectableFields), read from objects in this version.
	ownFields bool
	// deprecation is the warning of every request to the version.
	deprecation string
}

// patchVersions describes the kind's versions to the field manager, which
// converts objects to compare the fields of entries recorded in other
// versions in their own.
func (vs *VersionSet) patchVersions() *patch.Versions {
	pv := &patch.Versions{Schemas: map[string]*schema.Schema{}, Convert: vs.convertJSON}
	for av, v := range vs.byAPI {
		pv.Schemas[av] = v.schema
	}
	return pv
}

// convertJSON converts an object as decoded JSON, through its Go type.
func (vs *VersionSet) convertJSON(obj map[string]any, toAPI string) (map[string]any, error) {
	from, _ := obj["apiVersion"].(string)
	src := vs.byAPI[from]
	if src == nil {
		return nil, fmt.Errorf("unknown version %q", from)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	o := src.new()
	if err := json.Unmarshal(b, o); err != nil {
		return nil, err
	}
	out, err := vs.Convert(o, toAPI)
	if err != nil {
		return nil, err
	}
	if b, err = json.Marshal(out); err != nil {
		return nil, err
	}
	return patch.DecodeObject(b)
}

// ExpandVersions returns the kinds to register, one per version of k,
// the storage version's first, and what their resources share; for a
// kind of one version it returns k itself and nil.
func ExpandVersions(k kinds.Kind) ([]kinds.Kind, []bool, *VersionSet, error) {
	if len(k.Versions) == 0 {
		return []kinds.Kind{k}, []bool{true}, nil, nil
	}
	vs := &VersionSet{group: k.Group, kind: k.Kind, byAPI: map[string]*versionInfo{}, convertFn: k.Convert}
	var vks []kinds.Kind
	var served []bool
	var served1 []string
	for _, v := range k.Versions {
		if !ValidVersion(v.Name) {
			return nil, nil, nil, fmt.Errorf("version %q is not a DNS-1035 label (v1, v1beta1, v2alpha3, ...)", v.Name)
		}
		gv := meta.GroupVersion{Group: k.Group, Version: v.Name}.String()
		if vs.byAPI[gv] != nil {
			return nil, nil, nil, fmt.Errorf("version %s is listed twice", v.Name)
		}
		vk := k
		vk.Version, vk.Versions = v.Name, nil
		if v.New != nil {
			vk.New = v.New
			if v.Schema == nil {
				vk.Schema = nil // built from the version's own type
			}
		}
		if vk.New == nil {
			return nil, nil, nil, fmt.Errorf("version %s: New is required", v.Name)
		}
		if v.Schema != nil {
			vk.Schema = v.Schema
		}
		if v.PrinterColumns != nil {
			vk.PrinterColumns = v.PrinterColumns
		}
		if v.Subresources != nil {
			vk.Subresources = *v.Subresources
		}
		if v.SelectableFields != nil {
			vk.SelectableFields = v.SelectableFields
		}
		if vk.Schema == nil {
			sch, err := schema.FromType(TypeOf(vk.New()))
			if err != nil {
				return nil, nil, nil, fmt.Errorf("version %s: %w", v.Name, err)
			}
			vk.Schema = sch
		}
		info := &versionInfo{name: v.Name, APIVersion: gv, new: vk.New, typ: reflect.TypeOf(vk.New()), schema: vk.Schema,
			ownFields: v.SelectableFields != nil, deprecation: DeprecationWarning(k, v.Name)}
		vs.byAPI[gv] = info
		if h, ok := vk.New().(kinds.Hub); ok {
			if vs.hub != nil && vs.hub != reflect.TypeOf(h) {
				return nil, nil, nil, fmt.Errorf("versions %s and another both implement Hub", v.Name)
			}
			vs.hub = reflect.TypeOf(h)
		}
		if v.Storage {
			if vs.storage != nil {
				return nil, nil, nil, fmt.Errorf("versions %s and %s are both the storage version", vs.storage.name, v.Name)
			}
			vs.storage = info
			vks = append([]kinds.Kind{vk}, vks...)
			served = append([]bool{!v.NotServed}, served...)
		} else {
			vks = append(vks, vk)
			served = append(served, !v.NotServed)
		}
		if !v.NotServed {
			served1 = append(served1, v.Name)
		}
	}
	switch {
	case vs.storage == nil:
		return nil, nil, nil, errors.New("no version is the storage version: mark exactly one Storage")
	case k.Version != "" && k.Version != vs.storage.name:
		return nil, nil, nil, fmt.Errorf("Version %s is not the storage version %s: leave Version empty when Versions is set", k.Version, vs.storage.name)
	case len(served1) == 0:
		return nil, nil, nil, errors.New("no version is served")
	}
	vs.served = served1
	vs.preferred = SortVersions(served1)[0]
	if err := vs.checkConvertible(); err != nil {
		return nil, nil, nil, err
	}
	return vks, served, vs, nil
}

// DeprecationWarning is the warning of requests to version v of k, or
// "" when v is not deprecated. The default names the version to move to
// as kube-apiserver picks it for custom resources: the highest of the
// served, not deprecated versions that rank above v (not the preferred
// version, which may be v itself, deprecated, or rank below it); with
// none, the warning names no replacement.
func DeprecationWarning(k kinds.Kind, v string) string {
	for _, kv := range k.Versions {
		if kv.Name != v || !kv.Deprecated {
			continue
		}
		if kv.DeprecationWarning != "" {
			return kv.DeprecationWarning
		}
		gv := meta.GroupVersion{Group: k.Group, Version: v}
		msg := fmt.Sprintf("%s %s is deprecated", gv, k.Kind)
		if to := replacementVersion(k.Versions, v); to != "" {
			msg += fmt.Sprintf("; use %s %s", meta.GroupVersion{Group: k.Group, Version: to}, k.Kind)
		}
		return msg
	}
	return ""
}

// replacementVersion is the highest ranked served, not deprecated version
// ranking above the deprecated version v, or "".
func replacementVersion(versions []kinds.KindVersion, v string) string {
	best := ""
	for _, kv := range versions {
		if kv.NotServed || kv.Deprecated || compareVersions(kv.Name, v) <= 0 {
			continue
		}
		if best == "" || compareVersions(kv.Name, best) > 0 {
			best = kv.Name
		}
	}
	return best
}

// checkConvertible refuses Go types that cannot be converted to one
// another: each version's type is the hub's, or converts through it.
func (vs *VersionSet) checkConvertible() error {
	for _, v := range vs.byAPI {
		if v.typ == reflect.TypeOf(&meta.Unstructured{}) {
			continue
		}
		if v.typ == vs.storage.typ || v.typ == vs.hub {
			continue
		}
		if _, ok := v.new().(kinds.Convertible); !ok {
			return fmt.Errorf("version %s: %s converts to no other version: implement Hub on one version's type and Convertible on the others'", v.name, v.typ)
		}
		if vs.hub == nil {
			return fmt.Errorf("version %s: %s is Convertible but no version's type implements Hub", v.name, v.typ)
		}
	}
	return nil
}

// conversionError is the 500 of a failed conversion, naming the versions;
// an error that is a Status already (a run-time kind's Convert, which
// names what it converted in kube's words) is answered as it is.
func (vs *VersionSet) conversionError(from, to string, err error) error {
	var se *status.Error
	if errors.As(err, &se) {
		return err
	}
	return status.InternalError(fmt.Errorf("converting %s %s to %s: %w", from, vs.kind, to, err))
}

// Convert returns obj in the version toAPI. obj is not changed: the
// result is a new object, which may share obj's contents.
func (vs *VersionSet) Convert(obj meta.Object, toAPI string) (meta.Object, error) {
	from := obj.GetTypeMeta().APIVersion
	if from == toAPI {
		return obj, nil
	}
	src, dst := vs.byAPI[from], vs.byAPI[toAPI]
	if src == nil || dst == nil {
		return nil, vs.conversionError(from, toAPI, errors.New("unknown version"))
	}
	out, err := vs.convertTyped(obj, src, dst)
	if err != nil {
		return nil, vs.conversionError(from, toAPI, err)
	}
	return vs.converted(obj, out, toAPI)
}

// converted checks out, obj converted to toAPI, and sets its type.
func (vs *VersionSet) converted(obj, out meta.Object, toAPI string) (meta.Object, error) {
	from := obj.GetTypeMeta().APIVersion
	if a, b := obj.GetObjectMeta(), out.GetObjectMeta(); a.Name != b.Name || a.Namespace != b.Namespace ||
		a.UID != b.UID || a.ResourceVersion != b.ResourceVersion || a.Generation != b.Generation {
		return nil, vs.conversionError(from, toAPI, errors.New("the conversion changed the object's metadata"))
	}
	tm := out.GetTypeMeta()
	tm.APIVersion, tm.Kind = toAPI, vs.kind
	if u, ok := out.(*meta.Unstructured); ok {
		vs.coerce(u)
	}
	return out, nil
}

// coerce reads a run-time object just converted through the schema of
// the version it is now in, as kube-apiserver reads a custom resource it
// converts: the fields that version does not know are pruned, and so are
// the nulls it does not allow, but none of its defaults are added (an
// object read in a version other than the one it is stored in has the
// defaults of the latter). This is what a read in a version lacking a
// field the object has in the version it is stored in returns, and what
// a write in a version lacking a field of the storage version stores.
// u's contents are the conversion's own, not shared.
func (vs *VersionSet) coerce(u *meta.Unstructured) {
	sch := vs.byAPI[u.APIVersion].schema
	if sch == nil || u.Content == nil {
		return
	}
	sch.Prune(u.Content)
	sch.PruneNulls(u.Content)
}

func (vs *VersionSet) convertTyped(obj meta.Object, src, dst *versionInfo) (meta.Object, error) {
	if u, ok := obj.(*meta.Unstructured); ok {
		c := *u
		c.Content = DeepCopyJSON(u.Content).(map[string]any)
		if vs.convertFn != nil {
			if err := vs.convertFn(&c, dst.APIVersion); err != nil {
				return nil, InternalError(err)
			}
			if c.APIVersion != dst.APIVersion {
				return nil, fmt.Errorf("the conversion returned apiVersion %q", c.APIVersion)
			}
		}
		return &c, nil
	}
	if src.typ == dst.typ {
		c := reflect.New(src.typ.Elem())
		c.Elem().Set(reflect.ValueOf(obj).Elem())
		return c.Interface().(meta.Object), nil
	}
	var hub kinds.Hub
	switch o := obj.(type) {
	case kinds.Hub:
		hub = o
	case kinds.Convertible:
		hub = reflect.New(vs.hub.Elem()).Interface().(kinds.Hub)
		if err := o.ConvertTo(hub); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%T is neither Hub nor Convertible", obj)
	}
	out := dst.new()
	if reflect.TypeOf(out) == vs.hub {
		return hub, nil
	}
	c, ok := out.(kinds.Convertible)
	if !ok {
		return nil, fmt.Errorf("%T is not Convertible", out)
	}
	if err := c.ConvertFrom(hub); err != nil {
		return nil, err
	}
	return c, nil
}

// DeepCopyJSON copies decoded JSON.
func DeepCopyJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = DeepCopyJSON(x)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, x := range t {
			s[i] = DeepCopyJSON(x)
		}
		return s
	}
	return v
}
