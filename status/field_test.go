package status_test

import (
	"errors"
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

func TestPath(t *testing.T) {
	cases := []struct {
		name string
		path status.Path
		want string
	}{
		{"zero", status.Path{}, ""},
		{"top level", status.NewPath("spec"), "spec"},
		{"NewPath with more", status.NewPath("spec", "template", "spec"), "spec.template.spec"},
		{"child", status.NewPath("metadata").Child("name"), "metadata.name"},
		{"child of zero", status.Path{}.Child("spec"), "spec"},
		{"index then child", status.NewPath("spec", "ports").Index(0).Child("name"), "spec.ports[0].name"},
		{"key", status.NewPath("metadata", "labels").Key("app"), "metadata.labels[app]"},
		{"key with dots and slashes", status.NewPath("metadata", "annotations").Key("example.com/owner"), "metadata.annotations[example.com/owner]"},
		{"nested indexes", status.NewPath("spec", "matrix").Index(1).Index(12), "spec.matrix[1][12]"},
		{"negative index", status.NewPath("items").Index(-1), "items[-1]"},
		{"empty key", status.NewPath("data").Key(""), "data[]"},
		{"index of zero", status.Path{}.Index(3), "[3]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.path.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPathImmutable checks that deriving paths does not change the parent,
// so one parent can be shared by several children.
func TestPathImmutable(t *testing.T) {
	spec := status.NewPath("spec")
	a := spec.Child("a")
	b := spec.Index(2)
	if spec.String() != "spec" || a.String() != "spec.a" || b.String() != "spec[2]" {
		t.Errorf("got %q %q %q", spec, a, b)
	}
}

// fieldCase is one FieldError constructor call and apimachinery's
// rendering of the same error (field.Error's Type, ErrorBody and Error),
// taken from k8s.io/apimachinery v0.37.2's pkg/util/validation/field.
type fieldCase struct {
	name  string
	err   *status.FieldError
	typ   meta.CauseType
	field string
	body  string
}

var port0 = status.NewPath("spec", "ports").Index(0).Child("name")

func fieldCases() []fieldCase {
	return []fieldCase{
		{"Required", status.Required(port0, ""), meta.CauseTypeFieldValueRequired, "spec.ports[0].name", "Required value"},
		{"Required with detail", status.Required(port0, "name is required"), meta.CauseTypeFieldValueRequired, "spec.ports[0].name", "Required value: name is required"},
		{"Forbidden", status.ForbiddenField(port0, ""), meta.CauseTypeFieldValueForbidden, "spec.ports[0].name", "Forbidden"},
		{"Forbidden with detail", status.ForbiddenField(port0, "may not be set"), meta.CauseTypeFieldValueForbidden, "spec.ports[0].name", "Forbidden: may not be set"},
		{"Invalid string", status.InvalidValue(port0, "Foo", "must be lowercase"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", `Invalid value: "Foo": must be lowercase`},
		{"Invalid string with quotes", status.InvalidValue(port0, `a"b`, "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", `Invalid value: "a\"b": x`},
		{"Invalid int", status.InvalidValue(port0, 5000, "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", "Invalid value: 5000: x"},
		{"Invalid int64", status.InvalidValue(port0, int64(5), "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", "Invalid value: 5: x"},
		{"Invalid int32", status.InvalidValue(port0, int32(-5), "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", "Invalid value: -5: x"},
		{"Invalid uint64", status.InvalidValue(port0, uint64(7), "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", "Invalid value: 7: x"},
		{"Invalid float64", status.InvalidValue(port0, 1.5, "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", "Invalid value: 1.5: x"},
		{"Invalid big float64", status.InvalidValue(port0, 1e20, "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", "Invalid value: 1e+20: x"},
		{"Invalid big float32", status.InvalidValue(port0, float32(1e20), "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", "Invalid value: 1e+20: x"},
		{"Invalid bool without detail", status.InvalidValue(port0, true, ""), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", "Invalid value: true"},
		{"Invalid nil", status.InvalidValue(port0, nil, "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", "Invalid value: null: x"},
		{"Invalid slice", status.InvalidValue(port0, []string{"a", "b"}, "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", `Invalid value: ["a","b"]: x`},
		{"Invalid map, HTML escaped as json.Marshal does", status.InvalidValue(port0, map[string]string{"a": "<b>"}, "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", `Invalid value: {"a":"\u003cb\u003e"}: x`},
		{"Invalid pointer", status.InvalidValue(port0, ptr(int64(3)), "x"), meta.CauseTypeFieldValueInvalid, "spec.ports[0].name", "Invalid value: 3: x"},
		{"TypeInvalid", status.TypeInvalid(port0, "abc", "must be an integer"), meta.CauseTypeTypeInvalid, "spec.ports[0].name", `Invalid value: "abc": must be an integer`},
		{"NotSupported", status.NotSupported(port0, "huge", []string{"small", "large"}), meta.CauseTypeFieldValueNotSupported, "spec.ports[0].name", `Unsupported value: "huge": supported values: "small", "large"`},
		{"NotSupported no valid values", status.NotSupported(port0, "huge", nil), meta.CauseTypeFieldValueNotSupported, "spec.ports[0].name", `Unsupported value: "huge"`},
		{"NotSupported empty among valid values", status.NotSupported(port0, "x", []string{"Exact", ""}), meta.CauseTypeFieldValueNotSupported, "spec.ports[0].name", `Unsupported value: "x": supported values: "Exact", ""`},
		{"Duplicate string", status.Duplicate(port0, "a"), meta.CauseTypeFieldValueDuplicate, "spec.ports[0].name", `Duplicate value: "a"`},
		{"Duplicate map", status.Duplicate(port0, map[string]string{"name": "http"}), meta.CauseTypeFieldValueDuplicate, "spec.ports[0].name", `Duplicate value: {"name":"http"}`},
		{"TooLong", status.TooLong(port0, "xxxx", 3), meta.CauseTypeFieldValueTooLong, "spec.ports[0].name", "Too long: may not be more than 3 bytes"},
		{"TooLong one byte", status.TooLong(port0, "xxxx", 1), meta.CauseTypeFieldValueTooLong, "spec.ports[0].name", "Too long: may not be more than 1 byte"},
		{"TooLong unknown limit", status.TooLong(port0, "xxxx", -1), meta.CauseTypeFieldValueTooLong, "spec.ports[0].name", "Too long: value is too long"},
		{"TooMany", status.TooMany(port0, 5, 3), meta.CauseTypeFieldValueTooMany, "spec.ports[0].name", "Too many: 5: must have at most 3 items"},
		{"TooMany one item", status.TooMany(port0, 5, 1), meta.CauseTypeFieldValueTooMany, "spec.ports[0].name", "Too many: 5: must have at most 1 item"},
		{"TooMany unknown count", status.TooMany(port0, -1, 3), meta.CauseTypeFieldValueTooMany, "spec.ports[0].name", "Too many: must have at most 3 items"},
		{"TooMany unknown limit", status.TooMany(port0, 5, -1), meta.CauseTypeFieldValueTooMany, "spec.ports[0].name", "Too many: 5: has too many items"},
		{"NotFound cause type", &status.FieldError{Type: meta.CauseTypeFieldValueNotFound, Field: "spec.ref", BadValue: "x"}, meta.CauseTypeFieldValueNotFound, "spec.ref", `Not found: "x"`},
	}
}

// TestFieldErrors checks each FieldError constructor against
// apimachinery's field.Error wording, both ErrorBody (a cause's message)
// and Error ("field: body").
func TestFieldErrors(t *testing.T) {
	for _, tc := range fieldCases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err.Type != tc.typ {
				t.Errorf("Type = %q, want %q", tc.err.Type, tc.typ)
			}
			if tc.err.Field != tc.field {
				t.Errorf("Field = %q, want %q", tc.err.Field, tc.field)
			}
			if got := tc.err.ErrorBody(); got != tc.body {
				t.Errorf("ErrorBody() =\n\t%s\nwant\n\t%s", got, tc.body)
			}
			if got, want := tc.err.Error(), tc.field+": "+tc.body; got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		})
	}
}

// TestFieldErrorsInInvalid checks that each field error becomes one cause
// of an Invalid Status with the same type, field and body.
func TestFieldErrorsInInvalid(t *testing.T) {
	cases := fieldCases()
	errs := make(status.FieldErrors, len(cases))
	for i, tc := range cases {
		errs[i] = tc.err
	}
	st := status.Invalid(widgetGVK, "foo", errs).Status
	if len(st.Details.Causes) != len(cases) {
		t.Fatalf("%d causes, want %d", len(st.Details.Causes), len(cases))
	}
	for i, tc := range cases {
		want := meta.StatusCause{Type: tc.typ, Message: tc.body, Field: tc.field}
		if got := st.Details.Causes[i]; got != want {
			t.Errorf("%s: cause = %+v, want %+v", tc.name, got, want)
		}
	}
}

func TestFieldErrorsError(t *testing.T) {
	cases := []struct {
		name string
		errs status.FieldErrors
		want string
	}{
		{"none", nil, ""},
		{"one", status.FieldErrors{status.Required(status.NewPath("spec"), "")}, "spec: Required value"},
		{"two", status.FieldErrors{
			status.Required(status.NewPath("spec", "color"), ""),
			status.InvalidValue(status.NewPath("spec", "replicas"), -1, "must be greater than or equal to 0"),
		}, "spec.color: Required value, spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.errs.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFieldErrorIsError checks a FieldError can travel as an error and be
// recovered.
func TestFieldErrorIsError(t *testing.T) {
	var err error = status.Required(status.NewPath("spec"), "")
	var fe *status.FieldError
	if !errors.As(err, &fe) || fe.Field != "spec" {
		t.Fatalf("errors.As = %v", fe)
	}
}

func ptr[T any](v T) *T { return &v }
