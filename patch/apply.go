package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/yaml"
)

// ApplyOptions describes a server-side apply for [FieldManager.Apply].
type ApplyOptions struct {
	// Manager is the applier's field manager, as [ManagerName] derives it.
	Manager string
	// Subresource is the subresource applied through: "" for the object
	// itself, or "status". It is recorded in the entry.
	Subresource string
	// Force takes ownership of conflicting fields instead of failing.
	Force bool
	// LiveManaged are the stored object's entries.
	LiveManaged []meta.ManagedFieldsEntry
	// LiveObject is live already decoded without metadata.managedFields
	// (as [DecodeObjectWithoutManagedFields] decodes it), for a caller
	// that has it; live is then not decoded. Apply may change it.
	LiveObject map[string]any
}

// Apply runs a server-side apply (application/apply-patch+yaml): it
// merges the applied configuration into the live object, gives manager
// ownership of exactly the fields the configuration sets, removes fields
// the manager applied before, left out this time and nobody else owns, and
// returns the new object (without metadata.managedFields) and its
// managedFields entries.
//
// live is the stored object's JSON, empty when the object does not exist
// yet (apply creates it). applied is the request body, YAML or JSON; it
// must be of the manager's kind and version and must not carry
// metadata.managedFields.
//
// Errors carry kube-apiserver's status:
//
//   - 400 "error decoding YAML: ..." for a body that does not decode to an
//     object, "invalid object type: group/version, Kind=Kind" for another
//     kind or version, "metadata.managedFields must be nil";
//   - 409 Conflict naming each conflicting field and manager (see the
//     package documentation);
//   - 500 without a reason for what kube also fails with internally,
//     notably a configuration that does not fit the schema ("failed to
//     create typed patch object (ns/name; group/version, Kind=Kind):
//     .spec.x: field not declared in schema").
//
// The first apply to an object that has no managedFields first records
// its existing fields under an Update entry of manager
// "before-first-apply", as kube does, so that the applier conflicts with
// them instead of silently taking them. An apply that changes nothing
// returns the live object and keeps the entry's time. Applies by manager
// "kubectl" upgrade from, and keep up to date, kubectl's client-side
// kubectl.kubernetes.io/last-applied-configuration annotation.
func (m *FieldManager) Apply(live, applied []byte, opts ApplyOptions) ([]byte, []meta.ManagedFieldsEntry, error) {
	cfg, err := decodeApplyConfig(applied)
	if err != nil {
		return nil, nil, badRequest(fmt.Errorf("error decoding YAML: %w", err))
	}
	if gvk := objectGVK(cfg); gvk != m.gvk {
		return nil, nil, badRequest(fmt.Errorf("invalid object type: %v", gvkString(gvk)))
	}
	liveObj := opts.LiveObject
	if liveObj == nil || len(live) == 0 {
		if liveObj, err = m.decodeLiveWithoutManagedFields(live); err != nil {
			return nil, nil, internal(err)
		}
	}
	mg, err := decodeManaged(opts.LiveManaged, m.sets)
	if err != nil {
		return nil, nil, internal(fmt.Errorf("failed to decode managed fields: %v", err))
	}
	obj, mg, err := m.applyLastApplied(liveObj, cfg, mg, opts)
	if err != nil {
		var conflicts merge.Conflicts
		if errors.As(err, &conflicts) {
			return nil, nil, conflictError(conflicts)
		}
		return nil, nil, err
	}
	entries, err := mg.encode()
	if err != nil {
		return nil, nil, internal(fmt.Errorf("failed to encode managed fields: %v", err))
	}
	out, err := encodeJSON(obj)
	if err != nil {
		return nil, nil, internal(err)
	}
	return out, entries, nil
}

// decodeApplyConfig decodes an apply body as kube's YAML decoder does; a
// JSON object, the common case, takes a faster path with the same result.
func decodeApplyConfig(data []byte) (map[string]any, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		if v, err := decodeJSON(t); err == nil {
			if obj, ok := v.(map[string]any); ok {
				return obj, nil
			}
		}
	}
	// The YAML parser's cost grows with size times flow nesting depth;
	// bound the depth first so the cost stays proportional to the size.
	if err := codec.CheckYAMLCost(data); err != nil {
		return nil, err
	}
	var obj map[string]any
	err := yaml.Unmarshal(data, &obj, func(d *json.Decoder) *json.Decoder {
		d.UseNumber()
		return d
	})
	if err != nil {
		return nil, err
	}
	v, err := convertNumbers(obj)
	if err != nil {
		return nil, err
	}
	obj, _ = v.(map[string]any)
	return obj, nil
}

// applyTracked applies cfg as manager: a first apply to an object without
// entries records its fields as before-first-apply's first.
func (m *FieldManager) applyTracked(liveObj, cfg map[string]any, mg *managed, opts ApplyOptions) (map[string]any, *managed, error) {
	if len(mg.fields) == 0 {
		var err error
		if mg, err = m.trackUpdate(m.emptyObject(), liveObj, mg, BeforeFirstApplyManager, opts.Subresource); err != nil {
			return nil, nil, internal(fmt.Errorf("failed to create manager for existing fields: %v", err))
		}
	}
	id, err := m.managerID(opts.Manager, meta.ManagedFieldsOperationApply, opts.Subresource)
	if err != nil {
		return nil, nil, internal(err)
	}
	obj, mg, err := m.structuredApply(liveObj, cfg, mg, id, opts)
	if err != nil {
		return nil, nil, err
	}
	mg.strip(id, m.strip)
	if obj != nil {
		mg.times[id] = m.timeNow()
	} else {
		obj = deepCopy(liveObj).(map[string]any)
	}
	return obj, mg, nil
}

// structuredApply merges with structured-merge-diff; a nil object means
// nothing changed.
func (m *FieldManager) structuredApply(liveObj, cfg map[string]any, mg *managed, id string, opts ApplyOptions) (map[string]any, *managed, error) {
	if hasManagedFields(cfg) {
		return nil, nil, badRequest(errors.New("metadata.managedFields must be nil"))
	}
	cfgTyped, err := m.pt.FromUnstructured(cfg)
	if err != nil {
		// The client sent a configuration that does not fit the kind's
		// schema (an unknown field, a wrong type, a duplicate list key):
		// a 400 with structured-merge-diff's message, never a 500.
		return nil, nil, badRequest(fmt.Errorf("failed to create typed patch object (%v): %v", objectGVKNN(cfg), err))
	}
	if obj, ok := m.sameFieldsApply(liveObj, cfg, cfgTyped, mg, id, opts.Subresource); ok {
		return obj, mg, nil
	}
	liveTyped, err := m.pt.FromUnstructured(liveObj, typed.AllowDuplicates)
	if err != nil {
		return nil, nil, internal(fmt.Errorf("failed to create typed live object (%v): %v", objectGVKNN(liveObj), err))
	}
	if m.reappliesAll(cfgTyped, mg, id, opts.Subresource) {
		// Nothing to prune: without the last applied set the Updater
		// does not look for it.
		delete(mg.fields, id)
	}
	newTyped, fields, err := m.updater(opts.Subresource).Apply(liveTyped, cfgTyped, m.version, mg.fields, id, opts.Force)
	if err != nil {
		var conflicts merge.Conflicts
		if errors.As(err, &conflicts) {
			return nil, nil, conflicts
		}
		return nil, nil, internal(err)
	}
	out := mg.with(fields)
	if newTyped == nil {
		return nil, out, nil
	}
	obj, ok := newTyped.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, nil, internal(fmt.Errorf("failed to convert new typed object (%v) to object: not an object", objectGVKNN(cfg)))
	}
	return obj, out, nil
}

// reappliesAll reports whether the configuration cfg applied by the
// manager with identifier id sets every field that manager applied last
// time, all entries being of the manager's version. The Updater's prune
// then removes nothing: it takes out of the merged object the fields last
// applied, adds back every field some entry owns (the new applied set,
// which holds those fields and, as every applied set, the list items and
// struct fields above them, among them) and removes only fields last
// applied that were not added back. Knowing it spares the walks of the
// whole object that prune makes to find nothing.
func (m *FieldManager) reappliesAll(cfg *typed.TypedValue, mg *managed, id, subresource string) bool {
	last, ok := mg.fields[id]
	if !ok || m.generalOnly || last.APIVersion() != m.version || m.otherVersions(mg.fields) {
		return false
	}
	set, err := cfg.ToFieldSet()
	if err != nil {
		return false
	}
	if filter := m.updater(subresource).IgnoreFilter[m.version]; filter != nil {
		set = filter.Filter(set)
	}
	return last.Set().Difference(set).Empty()
}
