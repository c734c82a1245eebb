package patch

import (
	"reflect"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/schema"
)

// StrategicMergePatch applies a strategic merge patch
// (application/strategic-merge-patch+json) to the JSON object doc, driven
// by the kind's schema s, and returns the patched object. It implements
// the semantics of k8s.io/apimachinery's StrategicMergeMapPatch as
// kube-apiserver runs it:
//
//   - objects merge recursively and null deletes a field;
//   - a list whose x-kubernetes-patch-strategy is "merge" merges: lists of
//     objects by x-kubernetes-patch-merge-key, lists of scalars as a set
//     union; any other list (no strategy, "replace", an unknown strategy)
//     is replaced whole; an object with strategy "replace" is replaced;
//   - directives: {"$patch": "replace"} and {"$patch": "delete"} in an
//     object, list elements {"$patch": "delete", <key>: v} and
//     {"$patch": "replace"}, "$retainKeys": [...],
//     "$deleteFromPrimitiveList/<field>": [...] and
//     "$setElementOrder/<field>": [...];
//   - the order of merged lists follows $setElementOrder, then the patch,
//     then the live list.
//
// Errors carry kube-apiserver's status: a patch that is not a JSON object
// is 400 with the decoder's message, malformed directives are 400, lists
// of lists 422, other failures 500 without a reason. A nil schema merges
// every object and replaces every list. doc is not modified.
func StrategicMergePatch(doc, patch []byte, s *schema.Schema) ([]byte, error) {
	original, err := decodeObject(doc)
	if err != nil {
		return nil, internal(err)
	}
	p, err := decodeObject(patch)
	if err != nil {
		return nil, badRequest(err)
	}
	merged, err := StrategicMergeMap(original, p, s)
	if err != nil {
		return nil, err
	}
	out, err := encodeJSON(merged)
	if err != nil {
		return nil, internal(err)
	}
	return out, nil
}

// StrategicMergeMap is [StrategicMergePatch] on decoded JSON objects
// (int64 and float64 numbers). Both maps may be modified and the result
// may share memory with them, as with kube's StrategicMergeMapPatch.
func StrategicMergeMap(original, patch map[string]any, s *schema.Schema) (map[string]any, error) {
	merged, err := (&merger{}).mergeMap(original, patch, s)
	if err != nil {
		return nil, classifySMPError(err)
	}
	return merged, nil
}

// mergeMap merges patch into original (mergeMap with MergeParallelList
// and IgnoreUnmatchedNulls set, as the server runs it).
func (mg *merger) mergeMap(original, patch map[string]any, s *schema.Schema) (map[string]any, error) {
	if v, ok := patch[directiveMarker]; ok {
		return mapDirective(v, patch)
	}
	if original == nil {
		original = map[string]any{}
	}
	if err := applyRetainKeys(original, patch); err != nil {
		return nil, err
	}
	if err := mg.applySetElementOrder(original, patch, s); err != nil {
		return nil, err
	}
	// kube walks the patch in map order, which only matters for
	// pathological patches (a deletion list and its list both present
	// with clashing contents). Sorted keys make the result deterministic;
	// "$deleteFromPrimitiveList/f" then applies before "f", the order kube
	// takes most often in differential tests.
	for _, k := range sortedKeys(patch) {
		if err := mg.mergeField(original, k, patch[k], s); err != nil {
			return nil, err
		}
	}
	return original, nil
}

// mapDirective handles $patch in an object.
func mapDirective(directive any, patch map[string]any) (map[string]any, error) {
	switch directive {
	case replaceDirective:
		delete(patch, directiveMarker)
		return patch, nil
	case deleteDirective:
		return map[string]any{}, nil
	}
	return nil, errBadPatchType(directive, patch)
}

// mergeField merges one key of the patch into original.
func (mg *merger) mergeField(original map[string]any, k string, patchV any, s *schema.Schema) error {
	isDeleteList := false
	if strings.HasPrefix(k, deleteFromPrimitivePref) {
		key, err := extractKey(k, deleteFromPrimitivePref)
		if err != nil {
			return err
		}
		k, isDeleteList = key, true
	}
	if patchV == nil {
		delete(original, k)
		return nil
	}
	origV, ok := original[k]
	if !ok || reflect.TypeOf(origV) != reflect.TypeOf(patchV) {
		if !isDeleteList {
			setPatchValue(original, k, patchV)
		}
		return nil
	}
	var err error
	switch o := origV.(type) {
	case map[string]any:
		sub, pm, err2 := fieldMeta(s, k)
		if err2 != nil {
			return err2
		}
		strategy, err2 := otherStrategy(pm.strategies)
		if err2 != nil {
			return err2
		}
		if strategy == replaceDirective {
			original[k] = patchV
		} else {
			original[k], err = mg.mergeMap(o, patchV.(map[string]any), sub)
		}
	case []any:
		sub, pm, err2 := sliceMeta(s, k)
		if err2 != nil {
			return err2
		}
		strategy, err2 := otherStrategy(pm.strategies)
		if err2 != nil {
			return err2
		}
		if strategy == mergeDirective || isDeleteList {
			original[k], err = mg.mergeSlice(o, patchV.([]any), sub, pm.mergeKey, isDeleteList)
		} else {
			original[k] = patchV
		}
	default:
		setPatchValue(original, k, patchV)
	}
	return err
}

// setPatchValue stores a patch value that is not merged: nulls inside it
// are dropped and directives removed; a value that is itself a directive
// removes the field.
func setPatchValue(original map[string]any, k string, patchV any) {
	discardNulls(patchV)
	v, keep := removeDirectives(patchV)
	if keep {
		original[k] = v
	} else {
		delete(original, k)
	}
}

// discardNulls removes null fields from objects, recursively.
func discardNulls(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
			} else {
				discardNulls(e)
			}
		}
	case []any:
		for _, e := range t {
			discardNulls(e)
		}
	}
}

// removeDirectives strips directives from a value taken from the patch.
// An object carrying $patch is dropped (keep is false).
func removeDirectives(v any) (out any, keep bool) {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t[directiveMarker]; ok {
			return nil, false
		}
		for k, e := range t {
			c, keep := removeDirectives(e)
			if keep {
				t[k] = c
			} else {
				delete(t, k)
			}
		}
		return t, true
	case []any:
		res := make([]any, 0, len(t))
		for _, e := range t {
			if c, keep := removeDirectives(e); keep {
				res = append(res, c)
			}
		}
		return res, true
	}
	return v, true
}

// applyRetainKeys applies a $retainKeys directive: every field of the
// patch must be listed, and fields of original that are not are cleared.
func applyRetainKeys(original, patch map[string]any) error {
	raw, ok := patch[retainKeysDirective]
	if !ok {
		return nil
	}
	delete(patch, retainKeysDirective)
	list, ok := raw.([]any)
	if !ok {
		return ErrBadPatchFormatForRetainKeys
	}
	retain := make(map[any]struct{}, len(list))
	for _, v := range list {
		if !isHashable(v) {
			return ErrBadPatchFormatForRetainKeys
		}
		retain[v] = struct{}{}
	}
	for k, v := range patch {
		if v == nil || strings.HasPrefix(k, deleteFromPrimitivePref) || strings.HasPrefix(k, setElementOrderPref) {
			continue
		}
		if _, found := retain[k]; !found {
			return ErrBadPatchFormatForRetainKeys
		}
	}
	for k := range original {
		if _, found := retain[k]; !found {
			delete(original, k)
		}
	}
	return nil
}

// isHashable reports whether a decoded JSON value can be a map key; kube
// would panic on the others.
func isHashable(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
