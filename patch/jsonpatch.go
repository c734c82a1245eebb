package patch

import (
	"encoding/json"
	"errors"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// DefaultJSONPatchMaxCopyBytes bounds how much "copy" operations of one
// JSON patch may grow the document: kube-apiserver's default
// JSONPatchMaxCopyBytes, 3 MiB.
const DefaultJSONPatchMaxCopyBytes = 3 << 20

// JSONPatch applies an RFC 6902 JSON patch (application/json-patch+json)
// to the JSON object doc and returns the patched object.
//
// The operations are decoded with github.com/evanphx/json-patch/v5 and
// applied with the semantics of the v4 library kube-apiserver runs, which
// clients observe and rely on: "replace" of a missing object field adds
// it, "copy" from a missing field copies null, an operation without
// "value" uses null, a path without its leading "/" addresses the last
// token at the top level, negative array indices count from the end.
//
// Errors are classified as kube-apiserver classifies them:
//
//   - a body that is not a JSON array of operation objects: 400 BadRequest
//     with encoding/json's message;
//   - more than [MaxJSONPatchOperations] operations: 413
//     RequestEntityTooLarge;
//   - an operation that does not apply (a failing test, a missing path, an
//     unknown op, an index out of range, copies growing the document by
//     more than maxCopyBytes): 422 Invalid with kube's fixed message and
//     empty details; the cause is wrapped for errors.Is ([ErrTestFailed],
//     [ErrMissing], [ErrInvalidIndex]);
//   - a result that is not a JSON object: [InvalidResult].
//
// maxCopyBytes <= 0 means [DefaultJSONPatchMaxCopyBytes].
func JSONPatch(doc, patch []byte, maxCopyBytes int64) ([]byte, error) {
	ops, err := decodeJSONPatch(patch)
	if err != nil {
		return nil, err
	}
	root, err := decodeObject(doc)
	if err != nil || root == nil {
		return nil, internal(fmt.Errorf("invalid JSON document: %v", err))
	}
	if maxCopyBytes <= 0 {
		maxCopyBytes = DefaultJSONPatchMaxCopyBytes
	}
	out, err := applyJSONPatch(root, ops, maxCopyBytes)
	if err != nil {
		return nil, err
	}
	b, err := encodeJSON(out)
	if err != nil {
		return nil, internal(err)
	}
	if _, ok := out.(map[string]any); !ok {
		return nil, InvalidResult(b, notObject(out))
	}
	return b, nil
}

// decodeJSONPatch decodes the operations the way kube-apiserver's JSON
// patch library does: structure only, each operation checked when it is
// applied.
func decodeJSONPatch(patch []byte) (jsonpatch.Patch, error) {
	var ops jsonpatch.Patch
	if err := json.Unmarshal(patch, &ops); err != nil {
		return nil, badRequest(err)
	}
	if len(ops) > MaxJSONPatchOperations {
		return nil, tooManyOperations(len(ops))
	}
	return ops, nil
}

// The causes of a JSON patch that does not apply, as the patch library
// names them.
var (
	ErrTestFailed   = errors.New("test failed")
	ErrMissing      = errors.New("missing value")
	ErrInvalidIndex = errors.New("invalid index referenced")
)

// applyJSONPatch runs the operations on the decoded document root.
func applyJSONPatch(root any, ops jsonpatch.Patch, maxCopy int64) (any, error) {
	p := &jsonPatcher{root: root, maxCopy: maxCopy}
	for _, op := range ops {
		var err error
		switch op.Kind() {
		case "add":
			err = p.add(op)
		case "remove":
			err = p.remove(op)
		case "replace":
			err = p.replace(op)
		case "move":
			err = p.move(op)
		case "copy":
			err = p.copy(op)
		case "test":
			err = p.test(op)
		default:
			err = fmt.Errorf("Unexpected kind: %s", op.Kind())
		}
		if err != nil {
			var se *statusError
			if errors.As(err, &se) {
				return nil, err
			}
			return nil, unprocessable(err)
		}
	}
	return plain(p.root), nil
}
