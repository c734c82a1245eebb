package patch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// A write through /scale is tracked as kube-apiserver tracks it (its
// ScaleHandler): the parent's entries that own the replicas field are
// handed to a field manager of autoscaling/v1 Scale as owners of
// .spec.replicas, that manager records the write on the Scale, and the
// result goes back to the parent: a manager that lost .spec.replicas on
// the Scale loses the replicas field of the parent, and a manager that
// took it owns the parent's replicas field, in an entry with the
// subresource "scale" and the parent's apiVersion. That is what lets a
// controller scaling through /scale take replicas from a user who
// applied it, so that the user's next apply without replicas keeps the
// controller's value, and the user's apply with another value conflicts.

// scaleAPIVersion is the group/version of the Scale served on /scale.
const scaleAPIVersion = "autoscaling/v1"

// scaleReplicas is the replicas field of a Scale.
var scaleReplicas = fieldpath.MakePathOrDie("spec", "replicas")

// scaleSchema is autoscaling/v1 Scale.
func scaleSchema() *schema.Schema {
	integer := &schema.Schema{Type: "integer", Format: "int32"}
	return &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{
		"spec": {Type: "object", Properties: map[string]*schema.Schema{"replicas": integer}},
		"status": {Type: "object", Properties: map[string]*schema.Schema{
			"replicas": integer, "selector": {Type: "string"},
		}},
	}}
}

// scaleFields tracks writes through a kind's /scale subresource.
type scaleFields struct {
	scale    *FieldManager  // of the Scale
	replicas fieldpath.Path // the parent's replicas field
}

func newScaleFields(replicasPath string, opts FieldManagerOptions) (*scaleFields, error) {
	parts := strings.Split(strings.TrimPrefix(replicasPath, "."), ".")
	elems := make([]any, len(parts))
	for i, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("patch: scale replicas path %q: empty field name", replicasPath)
		}
		elems[i] = p
	}
	replicas, err := fieldpath.MakePath(elems...)
	if err != nil {
		return nil, fmt.Errorf("patch: scale replicas path %q: %v", replicasPath, err)
	}
	// The Scale's status is reset on writes through /scale, as kube's
	// scale subresources do.
	fm, err := NewFieldManager(scaleSchema(), FieldManagerOptions{
		Group: "autoscaling", Version: "v1", Kind: "Scale",
		ResetFields:       map[string][]string{"scale": {"status"}},
		MaxUpdateManagers: opts.MaxUpdateManagers, Now: opts.Now,
	})
	if err != nil {
		return nil, err
	}
	return &scaleFields{scale: fm, replicas: replicas}, nil
}

var errNoScale = errors.New("patch: the kind has no scale subresource (Config.ScaleReplicasPath)")

// UpdateScale records a write through /scale (a PUT or PATCH of the Scale)
// in the parent object's managedFields and returns the parent's new
// entries. parentManaged are the stored object's entries; liveScale and
// newScale are the Scale (autoscaling/v1, JSON) before and after the
// write. On error it returns parentManaged with the error: kube logs such
// errors and keeps the stored entries.
func (p *Patcher) UpdateScale(parentManaged []meta.ManagedFieldsEntry, liveScale, newScale []byte, manager string) ([]meta.ManagedFieldsEntry, error) {
	if p.scale == nil {
		return parentManaged, internal(errNoScale)
	}
	parent, err := decodeManaged(parentManaged, p.sets)
	if err != nil {
		return parentManaged, internal(fmt.Errorf("failed to decode managed fields: %v", err))
	}
	liveObj, err := p.scale.scale.decodeLive(liveScale)
	if err != nil {
		return parentManaged, internal(err)
	}
	newObj, err := decodeObject(newScale)
	if err != nil || newObj == nil {
		return parentManaged, internal(fmt.Errorf("failed to decode new object: %v", err))
	}
	sub := p.scale.toScale(parent, p.version)
	sub, err = p.scale.scale.update(liveObj, newObj, sub, manager, "scale")
	if err != nil {
		return parentManaged, internal(err)
	}
	out, err := p.scale.toParent(parent, sub, p.version).encode()
	if err != nil {
		return parentManaged, internal(fmt.Errorf("failed to encode managed fields: %v", err))
	}
	return out, nil
}

// toScale returns the parent's entries that own the replicas field as
// owners of the Scale's .spec.replicas.
func (s *scaleFields) toScale(parent *managed, version fieldpath.APIVersion) *managed {
	out := emptyManaged()
	for id, vs := range parent.fields {
		if vs.APIVersion() != version || !vs.Set().Has(s.replicas) {
			continue // another version's entry, or not an owner
		}
		out.fields[id] = fieldpath.NewVersionedSet(fieldpath.NewSet(scaleReplicas), scaleAPIVersion, vs.Applied())
		out.times[id] = parent.times[id]
	}
	return out
}

// toParent merges the Scale's entries after the write into the parent's:
// owners of the replicas field that lost it on the Scale lose it on the
// parent, and managers that took it on the Scale own it on the parent. As
// in kube, such a new entry carries no time.
func (s *scaleFields) toParent(parent, sub *managed, version fieldpath.APIVersion) *managed {
	out := emptyManaged()
	out.decoded = parent.decoded
	taken := make(map[string]bool, len(sub.fields))
	for id := range sub.fields {
		taken[id] = true
	}
	for id, vs := range parent.fields {
		switch {
		case vs.APIVersion() != version:
			continue // an entry no version served converts: dropped
		case !vs.Set().Has(s.replicas):
			out.fields[id] = vs
			out.times[id] = parent.times[id]
		case taken[id]:
			// Still an owner on the Scale: the entry stays as it is.
			out.fields[id] = vs
			out.times[id] = parent.times[id]
			delete(taken, id)
		default:
			// The write took replicas from this manager.
			if rest := vs.Set().Difference(fieldpath.NewSet(s.replicas)); !rest.Empty() {
				out.fields[id] = fieldpath.NewVersionedSet(rest, vs.APIVersion(), vs.Applied())
				out.times[id] = parent.times[id]
			}
		}
	}
	for id := range taken {
		vs := sub.fields[id]
		if !vs.Set().Has(scaleReplicas) {
			continue
		}
		out.fields[id] = fieldpath.NewVersionedSet(fieldpath.NewSet(s.replicas), version, vs.Applied())
		out.times[id] = parent.times[id]
	}
	return out
}
