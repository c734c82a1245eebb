package registry

import (
	"encoding/json"
	"fmt"

	"github.com/kapi-dev/kapi/apiserver/kinds"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

// newPatcher builds the patcher of a kind: every patch type and the field
// manager that keeps metadata.managedFields. Kinds served as
// meta.Unstructured refuse strategic merge patches, as kube-apiserver does
// for custom resources; a status subresource resets status on the main
// resource and spec on /status, so neither is recorded there.
func newPatcher(k kinds.Kind, vs *VersionSet) (*patch.Patcher, error) {
	_, unstructured := k.New().(*meta.Unstructured)
	cfg := patch.Config{
		Schema: k.Schema, Group: k.Group, Version: k.Version, Kind: k.Kind,
		NoStrategicMerge: unstructured,
	}
	if vs != nil {
		cfg.Versions = vs.patchVersions()
	}
	if k.Subresources.Status {
		cfg.ResetFields = map[string][]string{"": {"status"}, "status": {"spec"}}
	}
	if k.Subresources.Scale != nil {
		cfg.ScaleReplicasPath = k.Subresources.Scale.SpecReplicasPath
	}
	p, err := patch.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the patcher: %w", err)
	}
	return p, nil
}

// JSONWithoutManagedFields is the JSON form of obj, as [jsonForm] gives
// it, without metadata.managedFields: the field manager drops them, and
// neither encoding nor decoding them is needed.
func (r *Resource) JSONWithoutManagedFields(obj meta.Object) (map[string]any, error) {
	if tree, ok := r.TypedFormWithoutManagedFields(obj); ok {
		return tree, nil
	}
	m := obj.GetObjectMeta()
	sent := m.ManagedFields
	m.ManagedFields = nil
	b, err := json.Marshal(obj)
	m.ManagedFields = sent
	if err != nil {
		return nil, err
	}
	return patch.DecodeObject(b)
}
