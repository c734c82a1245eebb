package admission

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// mergeApplied merges patch into t.object as kube-apiserver merges an
// apply configuration of a MutatingAdmissionPolicy: both typed by the
// kind's schema (a kind without one is deduced: maps merged, lists
// replaced), the patch refused when it sets an atomic list, map or
// struct, then structured-merge-diff's merge, which keeps no
// managedFields: lists of type map and set merge by key, other fields
// of the patch replace the object's.
func mergeApplied(t target, patch map[string]any) (map[string]any, error) {
	pt := typed.DeducedParseableType
	if t.typ != nil {
		pt = *t.typ
	}
	p, err := pt.FromUnstructured(patch)
	if err != nil {
		return nil, fmt.Errorf("failed to convert patch object to typed object: %w", err)
	}
	if atomics := findAtomics("", p.Schema(), p.TypeRef(), p.AsValue()); len(atomics) > 0 {
		return nil, fmt.Errorf("invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: %v", strings.Join(atomics, ", "))
	}
	live, err := pt.FromUnstructured(t.object, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to convert original object to typed object: %w", err)
	}
	merged, err := live.Merge(p)
	if err != nil {
		return nil, fmt.Errorf("failed to merge patch: %w", err)
	}
	out, ok := merged.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("failed to convert typed object to object: not an object")
	}
	return out, nil
}

// findAtomics returns the paths (".spec.x[0]") of the atomic lists, maps
// and structs v sets.
func findAtomics(path string, s *schema.Schema, tr schema.TypeRef, v value.Value) []string {
	a, ok := s.Resolve(tr)
	if !ok {
		return nil
	}
	var out []string
	if v.IsMap() && a.Map != nil {
		if a.Map.ElementRelationship == schema.Atomic {
			out = append(out, path)
		}
		v.AsMap().Iterate(func(key string, val value.Value) bool {
			if f, ok := a.Map.FindField(key); ok {
				out = append(out, findAtomics(path+"."+key, s, f.Type, val)...)
			}
			return true
		})
	}
	if v.IsList() && a.List != nil {
		if a.List.ElementRelationship == schema.Atomic {
			out = append(out, path)
		}
		l := v.AsList()
		for i := 0; i < l.Length(); i++ {
			out = append(out, findAtomics(path+"["+strconv.Itoa(i)+"]", s, a.List.ElementType, l.At(i))...)
		}
	}
	return out
}
