package patch

import (
	"encoding/json"
	"errors"
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
)

// LastAppliedConfigAnnotation is the annotation kubectl's client-side
// apply keeps the last applied configuration in.
const LastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// totalAnnotationSizeLimit is the most bytes an object's annotations
// (keys and values) may take.
const totalAnnotationSizeLimit = 256 << 10

// applyLastApplied wraps an apply with kube's handling of the
// last-applied annotation, for manager "kubectl" only: conflicts on fields
// the annotation shows kubectl applied client-side are forced, and after a
// successful apply an existing annotation is rewritten to the new
// configuration.
func (m *FieldManager) applyLastApplied(liveObj, cfg map[string]any, mg *managed, opts ApplyOptions) (map[string]any, *managed, error) {
	if opts.Manager != kubectlManager {
		return m.applyTracked(liveObj, cfg, mg, opts)
	}
	obj, out, err := m.applyTracked(liveObj, cfg, mg.copy(), opts)
	var conflicts merge.Conflicts
	if err != nil && errors.As(err, &conflicts) {
		allowed, aerr := m.allowedConflicts(liveObj)
		if aerr != nil {
			return nil, nil, err
		}
		if !conflicts.ToSet().Difference(allowed).Empty() {
			var rest merge.Conflicts
			for _, c := range conflicts {
				if !allowed.Has(c.Path) {
					rest = append(rest, c)
				}
			}
			return nil, nil, rest
		}
		forced := opts
		forced.Force = true
		obj, out, err = m.applyTracked(liveObj, cfg, mg.copy(), forced)
	}
	if err != nil {
		return nil, nil, err
	}
	if lastApplied(obj) != "" {
		value, err := buildLastApplied(cfg)
		if err != nil {
			return nil, nil, internal(fmt.Errorf("failed to build last-applied annotation: %v", err))
		}
		setLastApplied(obj, value)
	}
	return obj, out, nil
}

// lastApplied returns obj's last-applied annotation, or "".
func lastApplied(obj map[string]any) string {
	ann, _ := metadataOf(obj)["annotations"].(map[string]any)
	s, _ := ann[LastAppliedConfigAnnotation].(string)
	return s
}

// allowedConflicts returns the fields kubectl applied client-side and that
// still hold the applied values: conflicts on them are kubectl's own.
func (m *FieldManager) allowedConflicts(liveObj map[string]any) (*fieldpath.Set, error) {
	la := lastApplied(liveObj)
	if la == "" {
		return nil, errors.New("no last applied annotation")
	}
	liveTyped, err := m.pt.FromUnstructured(liveObj)
	if err != nil {
		return nil, fmt.Errorf("failed to convert live obj to typed: %v", err)
	}
	lastObj, err := decodeObject([]byte(la))
	if err != nil || lastObj == nil {
		return nil, fmt.Errorf("failed to decode last applied obj: %v in '%s'", err, la)
	}
	if av, _ := lastObj["apiVersion"].(string); av != string(m.version) {
		return nil, fmt.Errorf("expected version of last applied to match live object '%s', but got '%s'", m.version, av)
	}
	lastTyped, err := m.pt.FromUnstructured(lastObj)
	if err != nil {
		return nil, fmt.Errorf("failed to convert last applied to typed: %v", err)
	}
	set, err := lastTyped.ToFieldSet()
	if err != nil {
		return nil, fmt.Errorf("failed to create fieldset for last applied object: %v", err)
	}
	cmp, err := lastTyped.Compare(liveTyped)
	if err != nil {
		return nil, fmt.Errorf("failed to compare last applied object and live object: %v", err)
	}
	return set.Difference(cmp.Modified).Difference(cmp.Added).Difference(cmp.Removed), nil
}

// buildLastApplied encodes the applied configuration without the
// annotation, as kubectl's annotation holds it (with a final newline).
func buildLastApplied(cfg map[string]any) (string, error) {
	c := deepCopy(cfg).(map[string]any)
	if ann, ok := metadataOf(c)["annotations"].(map[string]any); ok {
		delete(ann, LastAppliedConfigAnnotation)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	return string(b) + "\n", nil
}

// setLastApplied stores the annotation unless the annotations would
// exceed their size limit, in which case it is dropped.
func setLastApplied(obj map[string]any, value string) {
	md := metadataOf(obj)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	ann, _ := md["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
	}
	ann[LastAppliedConfigAnnotation] = value
	total := 0
	for k, v := range ann {
		s, _ := v.(string)
		total += len(k) + len(s)
	}
	if total > totalAnnotationSizeLimit {
		delete(ann, LastAppliedConfigAnnotation)
	}
	md["annotations"] = ann
}
