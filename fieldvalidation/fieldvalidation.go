package fieldvalidation

import (
	"fmt"
	"strings"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/status"
)

// Directive is the value of the fieldValidation query parameter.
type Directive string

// The directives kube-apiserver accepts.
const (
	Ignore Directive = "Ignore"
	Warn   Directive = "Warn"
	Strict Directive = "Strict"
)

// Parse reads a fieldValidation query parameter; the empty value is Warn.
// Any other value is a field error on fieldValidation, which kube-apiserver
// reports in a 422 Invalid Status for the request's options
// (CreateOptions, UpdateOptions or PatchOptions).
func Parse(value string) (Directive, status.FieldErrors) {
	switch d := Directive(value); d {
	case "":
		return Warn, nil
	case Ignore, Warn, Strict:
		return d, nil
	}
	// kube-apiserver lists the empty value among the supported ones.
	return "", status.FieldErrors{status.NotSupported(status.NewPath("fieldValidation"), value,
		[]string{"", string(Ignore), string(Strict), string(Warn)})}
}

// Check turns the problems of a body into what d asks for: warnings under
// Warn, a 400 BadRequest Status under Strict, nothing under Ignore or
// when there are no problems.
func (d Directive) Check(problems []error) (warnings []string, err error) {
	if len(problems) == 0 {
		return nil, nil
	}
	switch d {
	case Strict:
		return nil, status.BadRequest("strict decoding error: " + join(problems))
	case Warn:
		warnings = make([]string, len(problems))
		for i, p := range problems {
			warnings[i] = p.Error()
		}
	}
	return warnings, nil
}

func join(problems []error) string {
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, ", ")
}

// Unknown is the problem of a field that the kind's schema does not
// declare, at path (such as "spec.colour").
func Unknown(path string) error {
	return fmt.Errorf("unknown field %q", path)
}

// DecodeJSON decodes JSON into v case-sensitively, keeping integers in
// interface values as int64. Unknown and duplicate fields do not fail the
// decode: they come back as problems naming their full paths. err is a
// malformed body or a value of the wrong type. A [Shadowed] v has its
// problems found in its shadow.
func DecodeJSON(data []byte, v any) (problems []error, err error) {
	if s, ok := v.(Shadowed); ok {
		if problems, err = decodeStrict(data, s.StrictShadow()); err != nil {
			return nil, err
		}
		return problems, kjson.UnmarshalCaseSensitivePreserveInts(data, v)
	}
	return decodeStrict(data, v)
}

func decodeStrict(data []byte, v any) ([]error, error) {
	return kjson.UnmarshalStrict(data, v, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
}

// Shadowed is implemented by values that hold part of themselves in a
// form strict decoding cannot look into, such as a document kept as raw
// JSON (its UnmarshalJSON sees it whole). StrictShadow returns a new
// value of a type that reads the same JSON with every part typed:
// [DecodeJSON] finds the unknown and duplicate fields by decoding into
// it, in the order and with the paths of a value typed throughout, then
// decodes into the value itself.
type Shadowed interface {
	StrictShadow() any
}

// DecodeYAML decodes YAML (or JSON, which is YAML) as DecodeJSON does;
// a key repeated in a mapping is a problem too, worded by the YAML
// decoder with its line.
func DecodeYAML(data []byte, v any) (problems []error, err error) {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		// Decode leniently, and report what strict decoding found.
		var lerr error
		if j, lerr = yaml.YAMLToJSON(data); lerr != nil {
			return nil, fmt.Errorf("error converting YAML to JSON: %w", lerr)
		}
		problems = append(problems, err)
	}
	more, err := DecodeJSON(j, v)
	if err != nil {
		return nil, err
	}
	return append(problems, more...), nil
}
