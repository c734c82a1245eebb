package patch

import (
	"fmt"
	"strings"

	"github.com/kapi-dev/kapi/fieldvalidation"
	"github.com/kapi-dev/kapi/status"
)

// jsonPatchOp is one JSON patch operation, as kube-apiserver decodes it
// to check the patch for unknown and duplicate fields.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// BodyProblems decodes a JSON, merge or strategic merge patch strictly,
// as kube-apiserver does before patching unless fieldValidation is
// Ignore, and returns its unknown and duplicate fields for
// [fieldvalidation.Directive.Check]; JSON patch problems read
// `json patch unknown field "[0].colour"`. A body that does not decode is
// a 400 BadRequest Status worded as kube-apiserver words it.
func BodyProblems(patchType string, body []byte) ([]error, error) {
	switch patchType {
	case JSONPatchType:
		var ops []jsonPatchOp
		problems, err := fieldvalidation.DecodeJSON(body, &ops)
		if err != nil {
			// kube-apiserver's decoder names its own type.
			msg := strings.Replace(err.Error(), "patch.jsonPatchOp", "handlers.jsonPatchOp", 1)
			return nil, status.BadRequest("error decoding patch: " + msg)
		}
		for i, p := range problems {
			problems[i] = fmt.Errorf("json patch %w", p)
		}
		return problems, nil
	case MergePatchType:
		var v map[string]any
		problems, err := fieldvalidation.DecodeJSON(body, &v)
		if err != nil {
			return nil, status.BadRequest("error decoding patch: " + err.Error())
		}
		return problems, nil
	default: // strategic merge patch
		var v map[string]any
		problems, err := fieldvalidation.DecodeJSON(body, &v)
		if err != nil {
			return nil, status.BadRequest(err.Error())
		}
		return problems, nil
	}
}
