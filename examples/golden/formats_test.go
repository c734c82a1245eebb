package golden

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// The string formats of a custom resource's schema, checked by kapi's
// validator and by kube-apiserver's own (apiextensions-apiserver's
// validation, at the 1.37 formats), on the same values: the answers
// must be the same causes, in the same order.

// kubeFormats are the string formats kube-apiserver 1.37 checks, and a
// spelling of two with dashes moved, which it takes as the same.
var kubeFormats = []string{"bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac",
	"uuid", "uuid3", "uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor",
	"rgbcolor", "byte", "password", "date", "duration", "date-time", "k8s-short-name", "k8s-long-name",
	"datetime", "u-u-i-d", "int32", "unknown"}

// formatsCRD is a custom resource schema with one string field per
// format, and formats next to other checks.
const formatsCRD = `{"type":"object","properties":{"spec":{"type":"object","properties":{
 "patfmt":{"type":"string","format":"date","pattern":"^[0-9]+$"},
 "maxfmt":{"type":"string","format":"uuid","maxLength":5},
 "minfmt":{"type":"string","format":"uuid","minLength":40},
 "enumfmt":{"type":"string","format":"ipv4","enum":["a","1.2.3.4"]},
 "ios":{"x-kubernetes-int-or-string":true,"format":"date-time"},
 "nullfmt":{"type":"string","format":"date-time","nullable":true},
 "listitems":{"type":"array","items":{"type":"string","format":"email"}},
 "intfmt":{"type":"integer","format":"date-time"},
 "anyof":{"type":"string","anyOf":[{"format":"email"},{"format":"hostname"}]},
 "anyof2":{"type":"string","anyOf":[{"pattern":"^a$"},{"format":"email"}]},
 "anyof3":{"type":"string","anyOf":[{"pattern":"^a$"},{"format":"int32"}]},
 "anyof4":{"type":"string","anyOf":[{"pattern":"^a$"},{"format":"date-time","maxLength":1}]},
 "anyof5":{"type":"string","anyOf":[{"maxLength":1,"pattern":"^a$"},{"format":"email"}]},
 "anyof6":{"type":"integer","anyOf":[{"maximum":1},{"format":"email"}]},
 "anyof7":{"type":"integer","anyOf":[{"format":"email"},{"maximum":1,"minimum":0}]},
 "oneof":{"type":"string","oneOf":[{"format":"email"},{"format":"hostname"}]},
 "allof":{"type":"string","allOf":[{"format":"ipv4"}]},
 "notfmt":{"type":"string","not":{"format":"ipv4"}}}}}}`

// formatValidators are kapi's and kube's validators of formatsCRD with
// a field per format, named f0, f1... after kubeFormats.
func formatValidators(t testing.TB) (*schema.Validator, apivalidation.SchemaValidator) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(formatsCRD), &doc); err != nil {
		t.Fatal(err)
	}
	spec := doc["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
	for i, f := range kubeFormats {
		spec[fieldOf(i)] = map[string]any{"type": "string", "format": f}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.FromOpenAPI(raw)
	if err != nil {
		t.Fatal(err)
	}
	kapi, err := schema.NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	var v1props apiextv1.JSONSchemaProps
	if err := json.Unmarshal(raw, &v1props); err != nil {
		t.Fatal(err)
	}
	var props apiextensions.JSONSchemaProps
	if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1props, &props, nil); err != nil {
		t.Fatal(err)
	}
	kube, _, err := apivalidation.NewSchemaValidatorForVersion(&props, version.MajorMinor(1, 37))
	if err != nil {
		t.Fatal(err)
	}
	return kapi, kube
}

func fieldOf(i int) string { return "f" + string(rune('a'+i/26)) + string(rune('a'+i%26)) }

// compareWithKube validates {"spec": spec} with both validators.
func compareWithKube(t *testing.T, kapi *schema.Validator, kube apivalidation.SchemaValidator, spec map[string]any) {
	t.Helper()
	obj := map[string]any{"spec": spec}
	var want []string
	for _, e := range apivalidation.ValidateCustomResource(nil, obj, kube) {
		want = append(want, e.Error())
	}
	var got []string
	for _, e := range kapi.Validate(status.Path{}, obj) {
		got = append(got, e.Error())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%v: causes differ from kube-apiserver's (-kube +kapi):\n%s", spec, diff)
	}
}

// formatValues are values each refused or accepted by some formats.
var formatValues = []string{"", "x", "-", "507f1f77bcf86cd799439011", "http://example.com", "/path", "http://a b",
	"a@b.c", "A <a@b.c>", "a@@b", "example.com", "a.b", "a-", "a--b", "日本.jp", "a.日本", "€", strings.Repeat("é", 32),
	"1.2.3.4", "01.2.3.4", "256.1.1.1", "::ffff:1.2.3.4", "::1", "fe80::1%eth0", "0000000::1", "00000::1.2.3.4",
	"1:2:3:4:5:6:7:1.2.3.4", "1::2::3", "010.0.0.0/008", "1.2.3.4/33", "::/128", "00000::/64", "1.2.3.4/+1",
	"01:23:45:67:89:ab", "0123.4567.89ab", "01:23:45:67:89", "123e4567-e89b-12d3-a456-426614174000",
	"123e4567e89b12d3a456426614174000", "123e4567-e89b-32d3-c456-426614174000", "123e4567-e89b-42d3-a456-426614174000",
	"123e4567-e89b-52d3-B456-426614174000", "123e4567--e89b-12d3-a456-426614174000", "0-321-75104-3",
	"032175104X", "0-8044-2957-X", "978 0 321 75104 1", "9780321751042", "4111-1111-1111-1111", "4111111111111112",
	"213100000000003", "x4111111111111111y", "123-45-6789", "123 45 6789", "123456789", "#fff", "#ffff",
	"Abc", "rgb( 255 , 0 , 0 )", "rgb(01,0,0)", "rgb(1,2,3) ", "YQ==", "YQ", "YW=j", "-_-_", "2020-02-29",
	"2021-02-29", "2020-01-01T00:00:00Z", "2020-01-01t00:00:00z", "2020-01-01T00:00:00", "2020-01-01T24:00:00Z",
	"2020-01-01T00:00:00x5Z", "2020-01-01T00:00:00ZtXXX", "2020-01-01T00:00:00\n5Z", "2020-01-01T00:00:00+99:99",
	"1h30m", "-1.5h", "5 seconds", "abc 5 parsecs", "x 3 days y", "5", "10µs", "10μs", "2 wk",
	"99999999999999999999 s", "5.5 s", "a.b-c", "abc-", "a..b", strings.Repeat("a", 64), strings.Repeat("a", 254),
	"\x00", "\xff", "1.2.3.4\n"}

// TestStringFormatsAgainstKube validates every format's field with each
// of formatValues, and formats next to other checks, comparing kapi's
// causes with kube-apiserver's validator's.
func TestStringFormatsAgainstKube(t *testing.T) {
	kapi, kube := formatValidators(t)
	for _, x := range formatValues {
		for i := range kubeFormats {
			compareWithKube(t, kapi, kube, map[string]any{fieldOf(i): x})
		}
	}
	for _, spec := range []string{
		`{"patfmt":"x"}`, `{"patfmt":"12"}`, `{"maxfmt":"abcdef"}`, `{"minfmt":"abc"}`, `{"enumfmt":"b"}`,
		`{"enumfmt":"a"}`, `{"ios":"x"}`, `{"ios":5}`, `{"ios":5.5}`, `{"ios":true}`, `{"nullfmt":null}`,
		`{"nullfmt":"x"}`, `{"listitems":["x","a@b.c",null,5]}`, `{"intfmt":"x"}`, `{"intfmt":5}`,
		`{"anyof":"@@"}`, `{"anyof":5}`, `{"anyof2":"@@"}`, `{"anyof2":5}`,
		`{"anyof3":"@@"}`, `{"anyof4":"@@"}`, `{"anyof5":"@@"}`, `{"anyof6":5}`, `{"anyof7":5}`, `{"anyof7":"x"}`, `{"oneof":"@@"}`, `{"oneof":"a"}`,
		`{"allof":"x"}`, `{"allof":true}`, `{"allof":{}}`, `{"allof":1.5}`, `{"notfmt":"1.2.3.4"}`, `{"notfmt":5}`,
		`{"faa":5}`, `{"fbx":[1]}`, `{"fbx":{}}`,
	} {
		var x map[string]any
		dec := json.NewDecoder(strings.NewReader(spec))
		dec.UseNumber()
		if err := dec.Decode(&x); err != nil {
			t.Fatal(err)
		}
		compareWithKube(t, kapi, kube, numbers(x).(map[string]any))
	}
}

// numbers makes JSON numbers int64 or float64, as both servers decode them.
func numbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = numbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbers(e)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

// FuzzStringFormatsAgainstKube compares kapi's causes with kube's for a
// value given to every format's field.
func FuzzStringFormatsAgainstKube(f *testing.F) {
	for _, x := range formatValues {
		f.Add(x)
	}
	kapi, kube := formatValidators(f)
	f.Fuzz(func(t *testing.T, x string) {
		for i := range kubeFormats {
			compareWithKube(t, kapi, kube, map[string]any{fieldOf(i): x})
		}
	})
}
