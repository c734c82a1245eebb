package patch

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/kapi-dev/kapi/schema"
)

// The strategic merge patch directives.
const (
	directiveMarker         = "$patch"
	deleteDirective         = "delete"
	replaceDirective        = "replace"
	mergeDirective          = "merge"
	retainKeysStrategy      = "retainKeys"
	retainKeysDirective     = "$" + retainKeysStrategy
	deleteFromPrimitivePref = "$deleteFromPrimitiveList"
	setElementOrderPref     = "$setElementOrder"
)

// The errors kube's strategic merge patch reports with a status of their
// own (k8s.io/apimachinery/pkg/util/mergepatch); the text is kube's. Use
// errors.Is to tell them apart.
var (
	ErrBadPatchFormatForPrimitiveList       = errors.New("invalid patch format of primitive list")
	ErrBadPatchFormatForRetainKeys          = errors.New("invalid patch format of retainKeys")
	ErrBadPatchFormatForSetElementOrderList = errors.New("invalid patch format of setElementOrder list")
	ErrNoListOfLists                        = errors.New("lists of lists are not supported")
	ErrPatchContentNotMatchRetainKeys       = errors.New("patch content doesn't match retainKeys list")
	ErrUnsupportedStrategicMergePatchFormat = errors.New("strategic merge patch format is not supported")
)

// classifySMPError turns an error of the strategic merge into the Status
// kube-apiserver answers with (interpretStrategicMergePatchError): 400 for
// malformed directives, 422 for lists of lists and retainKeys mismatches,
// 500 without a reason for everything else.
func classifySMPError(err error) error {
	switch {
	case errors.Is(err, ErrBadPatchFormatForPrimitiveList),
		errors.Is(err, ErrBadPatchFormatForRetainKeys),
		errors.Is(err, ErrBadPatchFormatForSetElementOrderList),
		errors.Is(err, ErrUnsupportedStrategicMergePatchFormat):
		return badRequest(err)
	case errors.Is(err, ErrNoListOfLists), errors.Is(err, ErrPatchContentNotMatchRetainKeys):
		return unprocessable(err)
	}
	return internal(err)
}

// errBadArgType words a type mismatch as mergepatch.ErrBadArgType does,
// with Go's names for the decoded JSON types.
func errBadArgType(expected, actual any) error {
	return fmt.Errorf("expected a %s, but received a %s", reflect.TypeOf(expected), reflect.TypeOf(actual))
}

func errNoMergeKey(m map[string]any, k string) error {
	return fmt.Errorf("map: %v does not contain declared merge key: %s", m, k)
}

func errBadPatchType(t any, m map[string]any) error {
	return fmt.Errorf("unknown patch type: %s in map: %v", t, m)
}

// patchMeta is the patch strategy of one field.
type patchMeta struct {
	strategies []string
	mergeKey   string
}

// fieldMeta returns the schema of field key of the object node s and its
// patch metadata. An unknown node (nil, or one that preserves unknown
// fields without declaring key) yields a nil schema: lists below it are
// replaced and maps merged.
func fieldMeta(s *schema.Schema, key string) (*schema.Schema, patchMeta, error) {
	if s == nil {
		return nil, patchMeta{}, nil
	}
	f, ok := s.Properties[key]
	if !ok {
		f = s.AdditionalProperties
	}
	if f == nil {
		if s.XPreserveUnknownFields || s.Type == "" || len(s.Properties) == 0 {
			return nil, patchMeta{}, nil
		}
		return nil, patchMeta{}, fmt.Errorf("unable to find api field in struct %s for the json field %q", structName(s), key)
	}
	pm := patchMeta{mergeKey: f.XPatchMergeKey}
	if f.XPatchStrategy != "" {
		pm.strategies = strings.Split(f.XPatchStrategy, ",")
	}
	return f, pm, nil
}

// sliceMeta is fieldMeta for a list field: the schema returned is the
// item schema.
func sliceMeta(s *schema.Schema, key string) (*schema.Schema, patchMeta, error) {
	f, pm, err := fieldMeta(s, key)
	if err != nil || f == nil {
		return nil, pm, err
	}
	return f.Items, pm, nil
}

// structName names an object node in messages, as the Go type name kube
// would print.
func structName(s *schema.Schema) string {
	if i := strings.LastIndexByte(s.Name, '.'); i >= 0 {
		return s.Name[i+1:]
	}
	return s.Name
}

// otherStrategy splits off retainKeys from a field's strategies and
// returns the other one, as extractRetainKeysPatchStrategy does.
func otherStrategy(strategies []string) (string, error) {
	switch len(strategies) {
	case 0:
		return "", nil
	case 1:
		if strategies[0] == retainKeysStrategy {
			return "", nil
		}
		return strategies[0], nil
	case 2:
		switch {
		case strategies[0] == retainKeysStrategy:
			return strategies[1], nil
		case strategies[1] == retainKeysStrategy:
			return strategies[0], nil
		}
	}
	return "", fmt.Errorf("unexpected patch strategy: %v", strategies)
}

// extractKey returns what follows prefix+"/" in s.
func extractKey(s, prefix string) (string, error) {
	before, after, found := strings.Cut(s, "/")
	if !found || before != prefix {
		if prefix == deleteFromPrimitivePref {
			return "", ErrBadPatchFormatForPrimitiveList
		}
		return "", ErrBadPatchFormatForSetElementOrderList
	}
	return after, nil
}
