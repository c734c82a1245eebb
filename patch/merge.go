package patch

import (
	"encoding/json"
	"errors"
	"maps"
)

// errBadJSONPatch is the message kube-apiserver's merge patch library
// gives for a merge patch that is not a JSON object or array.
var errBadJSONPatch = errors.New("Invalid JSON Patch") //nolint:staticcheck // kube's wording

// MergePatch applies an RFC 7386 JSON merge patch
// (application/merge-patch+json) to the JSON object doc and returns the
// patched object. A null in the patch deletes the field; objects merge
// recursively; every other value, arrays included, replaces the old one.
//
// It follows the evanphx/json-patch v4 merge that kube-apiserver runs,
// including its corner cases: nulls nested in a value that replaces a
// non-object are dropped, a patch that is null or a scalar is a 400
// BadRequest "Invalid JSON Patch", as is one that is not JSON, and an
// array patch replaces the whole document, which then fails as
// [InvalidResult] because an object is required.
func MergePatch(doc, patch []byte) ([]byte, error) {
	target, err := decodeObject(doc)
	if err != nil || target == nil {
		return nil, internal(errors.New("Invalid JSON Document")) //nolint:staticcheck // kube's wording
	}
	p, err := decodeJSON(patch)
	if err != nil {
		return nil, badRequest(errBadJSONPatch)
	}
	switch t := p.(type) {
	case map[string]any:
		target = mergedCopy(target, t)
	case []any:
		arr := pruneArrayNulls(t)
		out, _ := json.Marshal(arr)
		return nil, InvalidResult(out, notObject(arr))
	default:
		return nil, badRequest(errBadJSONPatch)
	}
	out, err := encodeJSON(target)
	if err != nil {
		return nil, internal(err)
	}
	return out, nil
}

// MergePatchWithoutManagedFields is [MergePatch] for a caller that has
// doc's metadata.managedFields in typed form and puts them back: when the
// patch leaves them as they are (it is an object that neither names
// metadata.managedFields nor replaces metadata), it returns the patched
// object without them, having neither decoded nor encoded them, and ok
// true. Otherwise ok is false and nothing is done: the caller runs
// MergePatch. live is doc decoded without managedFields, as
// [DecodeObjectWithoutManagedFields] decodes it, which the merge leaves
// as it is, for the caller's field manager.
func MergePatchWithoutManagedFields(doc, patch []byte) (out []byte, live map[string]any, ok bool, err error) {
	return MergePatchObjectWithoutManagedFields(doc, nil, patch)
}

// MergePatchObjectWithoutManagedFields is [MergePatchWithoutManagedFields]
// for a caller that has doc decoded without managedFields already: form,
// as [DecodeObjectWithoutManagedFields] would decode doc, is patched
// instead of decoding doc, and returned as live. A nil form decodes doc.
func MergePatchObjectWithoutManagedFields(doc []byte, form map[string]any, patch []byte) (out []byte, live map[string]any, ok bool, err error) {
	p, err := decodeJSON(patch)
	if err != nil {
		return nil, nil, false, nil
	}
	t, isObj := p.(map[string]any)
	if !isObj || !keepsManagedFields(t) {
		return nil, nil, false, nil
	}
	if live = form; live == nil {
		live, err = DecodeObjectWithoutManagedFields(doc)
	}
	if err != nil || live == nil {
		return nil, nil, true, internal(errors.New("Invalid JSON Document")) //nolint:staticcheck // kube's wording
	}
	if out, err = encodeJSON(mergedCopy(live, t)); err != nil {
		return nil, nil, true, internal(err)
	}
	return out, live, true, nil
}

// mergedCopy merges patch into doc, as JSON merge patch does, on copies
// of the objects the patch changes: doc and what it holds are left as
// they are, and the result shares with doc what the patch does not
// change (a caller may keep doc as the live object; one that does not
// pays a shallow copy per object the patch reaches).
func mergedCopy(doc, patch map[string]any) map[string]any {
	out := maps.Clone(doc)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
			continue
		}
		cur, ok := out[k]
		if !ok || cur == nil {
			out[k] = pruneNulls(v)
			continue
		}
		curObj, curIsObj := cur.(map[string]any)
		patchObj, patchIsObj := v.(map[string]any)
		switch {
		case !curIsObj:
			out[k] = pruneNulls(v)
		case !patchIsObj:
			out[k] = v
		default:
			out[k] = mergedCopy(curObj, patchObj)
		}
	}
	return out
}

// keepsManagedFields reports whether merging patch into an object leaves
// its metadata.managedFields as they are.
func keepsManagedFields(patch map[string]any) bool {
	md, ok := patch["metadata"]
	if !ok {
		return true
	}
	mdObj, ok := md.(map[string]any)
	if !ok {
		return false // null deletes the metadata, anything else replaces it
	}
	_, named := mdObj["managedFields"]
	return !named
}

// pruneNulls drops null fields from objects, recursively, also inside the
// objects of arrays; null array elements stay.
func pruneNulls(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
			} else {
				t[k] = pruneNulls(e)
			}
		}
	case []any:
		return pruneArrayNulls(t)
	}
	return v
}

func pruneArrayNulls(a []any) []any {
	for i, e := range a {
		if e != nil {
			a[i] = pruneNulls(e)
		}
	}
	return a
}
