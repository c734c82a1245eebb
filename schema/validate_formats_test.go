package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// formatsSchema is the custom resource the string format tests and
// kube-apiserver's answers were taken from: a field per format, and
// formats next to other checks.
const formatsSchema = `{"type":"object","properties":{"spec":{"type":"object","properties":{
 "v":{"type":"string"},
 "patfmt":{"type":"string","format":"date","pattern":"^[0-9]+$"},
 "maxfmt":{"type":"string","format":"uuid","maxLength":5},
 "minfmt":{"type":"string","format":"uuid","minLength":40},
 "enumfmt":{"type":"string","format":"ipv4","enum":["a","1.2.3.4"]},
 "ios":{"x-kubernetes-int-or-string":true,"format":"date-time"},
 "nullfmt":{"type":"string","format":"date-time","nullable":true},
 "list":{"type":"string","format":"date-time"},
 "listitems":{"type":"array","items":{"type":"string","format":"email"}},
 "amap":{"type":"object","additionalProperties":{"x-kubernetes-int-or-string":true,"format":"date-time"}},
 "dashed":{"type":"string","format":"u-u-i-d"},
 "unknown":{"type":"string","format":"foo"},
 "intfmt":{"type":"integer","format":"date-time"},
 "anyof":{"type":"string","anyOf":[{"format":"email"},{"format":"hostname"}]},
 "anyof2":{"type":"string","anyOf":[{"pattern":"^a$"},{"format":"email"}]},
 "anyof3":{"type":"string","anyOf":[{"format":"email"},{"pattern":"^a$"}]},
 "oneof":{"type":"string","oneOf":[{"format":"email"},{"format":"hostname"}]},
 "allof":{"type":"string","allOf":[{"format":"ipv4"}]},
 "notfmt":{"type":"string","not":{"format":"ipv4"}}}}}}`

func formatsValidator(t testing.TB) *Validator {
	t.Helper()
	s, err := FromOpenAPI([]byte(formatsSchema))
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStringFormats checks, for each string format kube-apiserver
// keeps, values it accepts and values it refuses, as the reference
// kube-apiserver answered for a custom resource with a field of that
// format: nothing for the ones accepted, one FieldValueTypeInvalid
// cause naming the format for the others.
func TestStringFormats(t *testing.T) {
	long := func(label string, n int) string { return strings.TrimSuffix(strings.Repeat(label+".", n), ".") }
	stringFormatCases := []struct {
		format   string
		accepted []string
		refused  []string
	}{
		{"bsonobjectid",
			[]string{"507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011"},
			[]string{"", "x", "507f1f77bcf86cd79943901", "507f1f77bcf86cd7994390111", "507f1f77bcf86cd79943901g"}},
		{"uri",
			[]string{"http://example.com", "/path", "http://", "mailto:a@b.c", "http://[::1]:80/x?y#z", "//host/x", "/8"},
			[]string{"", "x", "path", "http://a b", "1:2:3:4:5:6:7:8"}},
		{"email",
			[]string{"a@b.c", "a@b", "A <a@b.c>", "<a@b.c>", "a.b@c.d", "\"a b\"@c.d"},
			[]string{"", "x", "a@@b"}},
		{"hostname",
			[]string{"x", "example.com", "a-b.com", "a.co", "a+b", "a-", "日本.jp", "日本.日本", "ÿ.com", "a$.com", "1a.com", "€", "1h"},
			[]string{"", "a.b", "a.b.c", "-a.com", "a-.com", "a.c", "a.c0m", "ex_ample.com", "a--b", "ab-", "a.b.", "1.2.3.4", "a€-b", "-"}},
		{"ipv4",
			[]string{"01.2.3.4", "001.002.003.004", "::ffff:1.2.3.4", "00000::1.2.3.4", "::ffff:01.2.3.4", "1:2:3:4:5:6:1.2.3.4", "::1.2.3.4"},
			[]string{"", "x", "256.1.1.1", "1.2.3", "1.2.3.4.5", "::1", "1:2:3:4:5:6:7:8", "1::", "::", "fe80::1%eth0", "0000000::1", "1.2.3.4/24", "::/0", "1:2:3:4:5:6:7:1.2.3.4", ":1::", "1:::2", "1::2::3"}},
		{"ipv6",
			[]string{"::ffff:1.2.3.4", "::1", "1:2:3:4:5:6:7:8", "1::", "::", "1:2:3:4:5:6:1.2.3.4", "::1.2.3.4"},
			[]string{"", "x", "01.2.3.4", "001.002.003.004", "256.1.1.1", "1.2.3", "1.2.3.4.5", "fe80::1%eth0", "0000000::1", "00000::1.2.3.4", "1.2.3.4/24", "::/0", "::ffff:01.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", ":1::", "1:::2", "1::2::3"}},
		{"cidr",
			[]string{"10.0.0.0/8", "010.0.0.0/008", "1.2.3.4/32", "::/128", "00000::/64", "::ffff:1.2.3.4/120"},
			[]string{"", "x", "1.2.3.4/33", "::/129", "1.2.3.4/", "/8", "1.2.3.4/-1", "1.2.3.4/+1", "1.2.3.4/0x1", "1.2.3.4", "::1"}},
		{"mac",
			[]string{"01:23:45:67:89:ab", "01-23-45-67-89-ab", "0123.4567.89ab", "01:23:45:67:89:ab:cd:ef", "01:23:45:67:89:AB", "0123.4567.89ab.cdef", "01:23:45:67:89:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67"},
			[]string{"", "x", "01:23:45:67:89"}},
		{"uuid",
			[]string{"123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-32d3-a456-426614174000", "123e4567-e89b-32d3-c456-426614174000", "123e4567-e89b-42d3-a456-426614174000", "123e4567-e89b-42d3-c456-426614174000", "123e4567-e89b-52d3-B456-426614174000", "123e4567-e89b-52d3-7456-426614174000", "123e4567-e89b12d3-a456426614174000"},
			[]string{"", "x", "123e4567--e89b-12d3-a456-426614174000", "{123e4567-e89b-12d3-a456-426614174000}", "123e4567-e89b-12d3-a456-42661417400"}},
		{"uuid3",
			[]string{"123e4567-e89b-32d3-a456-426614174000", "123e4567-e89b-32d3-c456-426614174000"},
			[]string{"", "x", "123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-42d3-a456-426614174000", "123e4567-e89b-42d3-c456-426614174000", "123e4567-e89b-52d3-B456-426614174000", "123e4567-e89b-52d3-7456-426614174000", "123e4567-e89b12d3-a456426614174000", "123e4567--e89b-12d3-a456-426614174000", "{123e4567-e89b-12d3-a456-426614174000}", "123e4567-e89b-12d3-a456-42661417400"}},
		{"uuid4",
			[]string{"123e4567-e89b-42d3-a456-426614174000"},
			[]string{"", "x", "123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-32d3-a456-426614174000", "123e4567-e89b-32d3-c456-426614174000", "123e4567-e89b-42d3-c456-426614174000", "123e4567-e89b-52d3-B456-426614174000", "123e4567-e89b-52d3-7456-426614174000", "123e4567-e89b12d3-a456426614174000", "123e4567--e89b-12d3-a456-426614174000", "{123e4567-e89b-12d3-a456-426614174000}", "123e4567-e89b-12d3-a456-42661417400"}},
		{"uuid5",
			[]string{"123e4567-e89b-52d3-B456-426614174000"},
			[]string{"", "x", "123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-32d3-a456-426614174000", "123e4567-e89b-32d3-c456-426614174000", "123e4567-e89b-42d3-a456-426614174000", "123e4567-e89b-42d3-c456-426614174000", "123e4567-e89b-52d3-7456-426614174000", "123e4567-e89b12d3-a456426614174000", "123e4567--e89b-12d3-a456-426614174000", "{123e4567-e89b-12d3-a456-426614174000}", "123e4567-e89b-12d3-a456-42661417400"}},
		{"isbn",
			[]string{"0321751043", "0-321-75104-3", "0 321 75104 3", "978-0321751041", "9780321751041", "978 0 321 75104 1", "080442957X", "0-8044-2957-X"},
			[]string{"", "x", "032175104X", "032175104x", "0321751044", "9780321751042"}},
		{"isbn10",
			[]string{"0321751043", "0-321-75104-3", "0 321 75104 3", "080442957X", "0-8044-2957-X"},
			[]string{"", "x", "032175104X", "032175104x", "0321751044", "978-0321751041", "9780321751041", "9780321751042", "978 0 321 75104 1"}},
		{"isbn13",
			[]string{"978-0321751041", "9780321751041", "978 0 321 75104 1"},
			[]string{"", "x", "0321751043", "0-321-75104-3", "0 321 75104 3", "032175104X", "032175104x", "0321751044", "9780321751042", "080442957X", "0-8044-2957-X"}},
		{"creditcard",
			[]string{"4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "4222222222222", "5500000000000004", "340000000000009", "30000000000004", "6011000000000004", "3530111333300000", "180000000000002", "x4111111111111111y"},
			[]string{"", "x", "4111111111111112", "213100000000003", "5600000000000003"}},
		{"ssn",
			[]string{"123-45-6789", "123 45 6789", "123-45 6789"},
			[]string{"", "x", "123456789", "123-456789", "12a-45-6789", "123--5-6789"}},
		{"hexcolor",
			[]string{"#fff", "fff", "#FFFFFF", "ffffff", "abc", "Abc"},
			[]string{"", "x", "#ffff", "#ggg", "##fff"}},
		{"rgbcolor",
			[]string{"rgb(255,0,0)", "rgb( 255 , 0 , 0 )", "rgb(\t1,2,3)", "rgb(199,249,250)"},
			[]string{"", "x", "rgb(256,0,0)", "rgb(01,0,0)", "rgb(255,0)", "RGB(1,2,3)", "rgb(1,2,3) ", "rgb(260,1,1)"}},
		{"byte",
			[]string{"YQ==", "YWI=", "YWJj", "abcdYQ==", "4111111111111111", "null"},
			[]string{"", "x", "YQ", "YQ=", "Y===", "-_-_", "YWJj\n", "YW=j", "abcd===="}},
		{"password",
			[]string{"", "x", "http://a b", "\n", "é"},
			[]string{}},
		{"date",
			[]string{"2020-01-01", "2020-02-29"},
			[]string{"", "x", "2020-02-30", "2021-02-29", "2020-1-01", "20200101", "2020-01-01T00:00:00Z"}},
		{"duration",
			[]string{"1h", "1h30m", "-1.5h", "5 seconds", "3 days", "x 3 days y", "0", "5 mins", "5m", "10 µs", "10µs", "10μs", "1 week", "2 wk", "1 hr", "5  \t hours", "1 D", "5 Seconds", "5.5 s", "123e4567-e89b-12d3-a456-426614174000"},
			[]string{"", "x", "abc 5 parsecs", "5", "99999999999999999999 s", "1h 99999999999999999999x", "s5"}},
		{"date-time",
			[]string{"2020-01-01T00:00:00Z", "2020-01-01t00:00:00z", "2020-01-01T00:00:00+01:00", "2020-01-01T00:00:00.123Z", "2020-01-01T00:00:00.123456789-05:30", "2020-01-01T00:00:00x5Z", "2020-01-01T00:00:0012z", "2020-01-01T00:00:00ZtXXX", "2020-01-01T00:00:00+99:99", "0001-01-01T00:00:00Z"},
			[]string{"", "x", "2020-01-01T00:00:00", "2020-01-01T24:00:00Z", "2020-01-01T23:60:00Z", "2020-01-01T23:59:60Z", "2020-01-01 00:00:00Z", "2020-01-01T00:00:00+1:00", "2020-01-01T1:00:00Z"}},
		{"k8s-short-name",
			[]string{"x", "a-b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "2020-01-01"},
			[]string{"", "a.b-c", "abc-", "Abc", "a_b", "a..b", ".a", "a.", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "1.2.3.4"}},
		{"k8s-long-name",
			[]string{"x", "a-b", "a.b-c", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "1.2.3.4", "example.com", "a.b.c"},
			[]string{"", "abc-", "Abc", "a_b", "a..b", ".a", "a."}},
	}
	stringFormatCases = append(stringFormatCases, []struct {
		format   string
		accepted []string
		refused  []string
	}{
		{"hostname",
			[]string{strings.Repeat("a", 63), strings.Repeat("a", 63) + ".com", strings.Repeat("é", 31), strings.Repeat("é", 31) + ".com",
				long(strings.Repeat("a", 50), 5)[:253], "a.b.cd", "a.日本", "a--b.com", "€.com", "1.com"},
			[]string{strings.Repeat("a", 64), strings.Repeat("a", 64) + ".com", strings.Repeat("é", 32), strings.Repeat("é", 32) + ".com",
				long(strings.Repeat("a", 63), 4)[:253] + "a.com", strings.Repeat("a", 253), "a.bc1", "a.b-", "a.-b.com", "a.€", "a..com", "a_1.com"}},
		{"k8s-long-name",
			[]string{strings.Repeat("a", 253), long(strings.Repeat("a", 50), 5)[:253]},
			[]string{strings.Repeat("a", 254), long(strings.Repeat("a", 63), 4)[:253] + "a.com", "a.-b.com", "a.日本", "€.com", "a_1.com"}},
		{"date-time",
			[]string{"2020-01-01T00:00:00é5Z"},
			[]string{"2020-01-01T00:00:00.Z", "2020-01-01T00:00:00\n5Z", "2020-01-01T00:00:00+01:00x", "2020-01-01TT00:00:00Z", "2020-01-01T00:00:00.5+0100"}},
	}...)
	for _, tc := range stringFormatCases {
		s := &Schema{Type: "object", Properties: map[string]*Schema{"v": {Type: "string", Format: tc.format}}}
		v, err := NewValidator(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range tc.accepted {
			if errs := v.Validate(status.NewPath("spec"), map[string]any{"v": x}); len(errs) > 0 {
				t.Errorf("%s %q: got %v, want it accepted", tc.format, x, messages(errs))
			}
		}
		for _, x := range tc.refused {
			q := strconv.Quote(x)
			want := fmt.Sprintf("spec.v: Invalid value: %s: spec.v in body must be of type %s: %s", q, tc.format, q)
			errs := v.Validate(status.NewPath("spec"), map[string]any{"v": x})
			if got := messages(errs); len(got) != 1 || got[0] != want || errs[0].Type != "FieldValueTypeInvalid" {
				t.Errorf("%s %q:\n got %v\nwant [%s] (FieldValueTypeInvalid)", tc.format, x, got, want)
			}
		}
	}
}

// TestStringFormatOrder checks where a format's error comes among a
// node's others, and what is not checked against a format (null, a
// list, a number, an unknown format, a format on another type), each
// against the reference kube-apiserver's causes for the same custom
// resource, in its order.
func TestStringFormatOrder(t *testing.T) {
	v := formatsValidator(t)
	tests := []struct {
		spec string
		want []string
	}{
		{`{"patfmt":"x"}`, []string{
			`spec.patfmt: Invalid value: "x": spec.patfmt in body should match '^[0-9]+$'`,
			`spec.patfmt: Invalid value: "x": spec.patfmt in body must be of type date: "x"`}},
		{`{"patfmt":"12"}`, []string{`spec.patfmt: Invalid value: "12": spec.patfmt in body must be of type date: "12"`}},
		{`{"patfmt":"2020-01-01"}`, []string{`spec.patfmt: Invalid value: "2020-01-01": spec.patfmt in body should match '^[0-9]+$'`}},
		{`{"maxfmt":"abcdef"}`, []string{
			`spec.maxfmt: Too long: may not be more than 5 bytes`,
			`spec.maxfmt: Invalid value: "abcdef": spec.maxfmt in body must be of type uuid: "abcdef"`}},
		{`{"minfmt":"abc"}`, []string{
			`spec.minfmt: Invalid value: "abc": spec.minfmt in body should be at least 40 chars long`,
			`spec.minfmt: Invalid value: "abc": spec.minfmt in body must be of type uuid: "abc"`}},
		{`{"enumfmt":"a"}`, []string{`spec.enumfmt: Invalid value: "a": spec.enumfmt in body must be of type ipv4: "a"`}},
		{`{"enumfmt":"b"}`, []string{
			`spec.enumfmt: Invalid value: "b": spec.enumfmt in body must be of type ipv4: "b"`,
			`spec.enumfmt: Unsupported value: "b": supported values: "a", "1.2.3.4"`}},
		{`{"enumfmt":"1.2.3.4"}`, nil},
		{`{"ios":"x"}`, []string{`spec.ios: Invalid value: "x": spec.ios in body must be of type date-time: "x"`}},
		{`{"ios":5}`, nil},
		{`{"ios":"2020-01-01T00:00:00Z"}`, nil},
		{`{"ios":5.5}`, []string{`spec.ios: Invalid value: "float64": spec.ios in body must be of type date-time: "float64"`}},
		{`{"ios":true}`, []string{`spec.ios: Invalid value: "": spec.ios in body must be of type date-time: ""`}},
		{`{"nullfmt":null}`, nil},
		{`{"nullfmt":"x"}`, []string{`spec.nullfmt: Invalid value: "x": spec.nullfmt in body must be of type date-time: "x"`}},
		{`{"list":["x"]}`, nil},
		{`{"list":[]}`, nil},
		{`{"list":{}}`, []string{`spec.list: Invalid value: "": spec.list in body must be of type date-time: ""`}},
		{`{"list":5}`, []string{`spec.list: Invalid value: "int64": spec.list in body must be of type date-time: "int64"`}},
		{`{"listitems":["x","a@b.c",null,5]}`, []string{
			`spec.listitems[0]: Invalid value: "x": spec.listitems[0] in body must be of type email: "x"`,
			`spec.listitems[2]: Invalid value: "null": spec.listitems[2] in body must be of type string: "null"`,
			`spec.listitems[3]: Invalid value: "int64": spec.listitems[3] in body must be of type email: "int64"`}},
		{`{"amap":{"a":"x","b":5,"c":"2020-01-01T00:00:00Z","d":true}}`, []string{
			`spec.amap.a: Invalid value: "x": spec.amap.a in body must be of type date-time: "x"`,
			`spec.amap.d: Invalid value: "": spec.amap.d in body must be of type date-time: ""`}},
		{`{"dashed":"x"}`, []string{`spec.dashed: Invalid value: "x": spec.dashed in body must be of type u-u-i-d: "x"`}},
		{`{"dashed":"123e4567-e89b-12d3-a456-426614174000"}`, nil},
		{`{"unknown":"x"}`, nil},
		{`{"intfmt":"x"}`, []string{`spec.intfmt: Invalid value: "string": spec.intfmt in body must be of type integer: "string"`}},
		{`{"intfmt":5}`, nil},
		{`{"anyof":"@@"}`, []string{
			`<nil>: Invalid value: "": "spec.anyof" must validate at least one schema (anyOf)`,
			`spec.anyof: Invalid value: "@@": spec.anyof in body must be of type email: "@@"`}},
		{`{"anyof":"a.com"}`, nil},
		{`{"anyof":5}`, []string{
			`spec.anyof: Invalid value: "integer": spec.anyof in body must be of type string: "integer"`,
			`<nil>: Invalid value: "": "spec.anyof" must validate at least one schema (anyOf)`,
			`spec.anyof: Invalid value: "int64": spec.anyof in body must be of type email: "int64"`}},
		{`{"anyof2":"@@"}`, []string{
			`<nil>: Invalid value: "": "spec.anyof2" must validate at least one schema (anyOf)`,
			`spec.anyof2: Invalid value: "@@": spec.anyof2 in body must be of type email: "@@"`}},
		{`{"anyof3":"@@"}`, []string{
			`<nil>: Invalid value: "": "spec.anyof3" must validate at least one schema (anyOf)`,
			`spec.anyof3: Invalid value: "@@": spec.anyof3 in body must be of type email: "@@"`}},
		{`{"anyof2":5}`, []string{`spec.anyof2: Invalid value: "integer": spec.anyof2 in body must be of type string: "integer"`}},
		{`{"oneof":"@@"}`, []string{
			`<nil>: Invalid value: "": "spec.oneof" must validate one and only one schema (oneOf). Found none valid`,
			`spec.oneof: Invalid value: "@@": spec.oneof in body must be of type email: "@@"`}},
		{`{"oneof":"a"}`, nil},
		{`{"allof":"x"}`, []string{
			`spec.allof: Invalid value: "x": spec.allof in body must be of type ipv4: "x"`,
			`<nil>: Invalid value: "": "spec.allof" must validate all the schemas (allOf). None validated`}},
		{`{"allof":true}`, []string{
			`spec.allof: Invalid value: "boolean": spec.allof in body must be of type string: "boolean"`,
			`spec.allof: Invalid value: "": spec.allof in body must be of type ipv4: ""`,
			`<nil>: Invalid value: "": "spec.allof" must validate all the schemas (allOf). None validated`}},
		{`{"allof":1.5}`, []string{
			`spec.allof: Invalid value: "number": spec.allof in body must be of type string: "number"`,
			`spec.allof: Invalid value: "float64": spec.allof in body must be of type ipv4: "float64"`,
			`<nil>: Invalid value: "": "spec.allof" must validate all the schemas (allOf). None validated`}},
		{`{"notfmt":"1.2.3.4"}`, []string{`<nil>: Invalid value: "": "spec.notfmt" must not validate the schema (not)`}},
		{`{"notfmt":"x"}`, nil},
		{`{"notfmt":5}`, []string{`spec.notfmt: Invalid value: "integer": spec.notfmt in body must be of type string: "integer"`}},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			got := messages(v.Validate(status.Path{}, map[string]any{"spec": mustJSON(t, tc.spec)}))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// timesAndBytes has the Go types the schema built by reflection gives a
// string format.
type timesAndBytes struct {
	Seen  meta.Time         `json:"seen"`
	Maybe *meta.Time        `json:"maybe,omitempty"`
	Micro meta.MicroTime    `json:"micro"`
	When  time.Time         `json:"when"`
	Data  []byte            `json:"data,omitempty"`
	Files map[string][]byte `json:"files"`
	Raw   []byte            `json:"raw"`
}

// TestGoTypeFormatsHold checks that what kapi writes for the Go types
// the schema built by reflection gives a format (meta.Time, MicroTime,
// time.Time: date-time; []byte: byte) is of that format, so that
// validating a Go kind's JSON against its own schema finds nothing. The
// one exception is an empty []byte without omitempty: it is written "",
// which is not base64 to kube-apiserver either (a custom resource made
// from the same type by controller-gen refuses it the same way).
func TestGoTypeFormatsHold(t *testing.T) {
	s := mustFromType(t, timesAndBytes{})
	for name, want := range map[string]string{"seen": "date-time", "micro": "date-time", "when": "date-time", "data": "byte", "raw": "byte"} {
		if got := s.Properties[name].Format; got != want {
			t.Fatalf("%s: format %q, want %q", name, got, want)
		}
	}
	if got := s.Properties["files"].AdditionalProperties.Format; got != "byte" {
		t.Fatalf("files: format %q, want byte", got)
	}
	v, err := NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	east := time.FixedZone("east", 5*3600+30*60)
	west := time.FixedZone("west", -8*3600)
	for _, at := range []time.Time{
		time.Date(2026, 12, 31, 23, 59, 59, 999999999, east),
		time.Date(2024, 2, 29, 0, 0, 0, 0, west),
		time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 1, time.UTC),
		time.Unix(0, 0),
	} {
		for _, data := range [][]byte{nil, {}, {0}, {0xff, 0xfe}, []byte("hello, world")} {
			raw := data
			if len(raw) == 0 {
				raw = []byte{1} // "" is the exception below
			}
			obj := timesAndBytes{Seen: meta.NewTime(at), Maybe: &meta.Time{Time: at}, Micro: meta.NewMicroTime(at), When: at,
				Data: data, Files: map[string][]byte{"a": raw}, Raw: raw}
			b, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			x, _ := decodeValue(b)
			s.ApplyDefaults(x) // nulls are dropped, as for a custom resource
			if errs := v.Validate(status.Path{}, x); len(errs) > 0 {
				t.Errorf("%s: %v", b, messages(errs))
			}
		}
	}
	raw, err := NewValidator(s.Properties["raw"])
	if err != nil {
		t.Fatal(err)
	}
	want := `raw: Invalid value: "": raw in body must be of type byte: ""`
	if got := messages(raw.Validate(status.NewPath("raw"), "")); len(got) != 1 || got[0] != want {
		t.Errorf("empty []byte: got %v, want [%s]", got, want)
	}
}
