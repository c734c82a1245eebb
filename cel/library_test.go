package cel

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// evalRule compiles one rule on a small schema and evaluates it on a
// fixed object; it returns the errors as text ("" when the rule holds).
func evalRule(t *testing.T, rule string) string {
	t.Helper()
	doc := fmt.Sprintf(`{"type":"object","properties":{"spec":{"type":"object",
	  "properties":{"s":{"type":"string","maxLength":64},"ints":{"type":"array","maxItems":10,"items":{"type":"integer"}},
	  "strs":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":16}}},
	  "x-kubernetes-validations":[{"rule":%q}]}}}`, rule)
	v, err := compileErr(t, doc)
	if err != nil {
		return err.Error()
	}
	obj := map[string]any{"spec": map[string]any{"s": "Hello, World", "ints": []any{int64(3), int64(1), int64(2)},
		"strs": []any{"a", "b", "c"}}}
	errs, _ := v.Validate(context.Background(), obj, nil)
	if len(errs) == 0 {
		return ""
	}
	return errs.Error()
}

// TestLibraries checks every library function rules may use, each with
// a rule that holds.
func TestLibraries(t *testing.T) {
	rules := map[string][]string{
		"strings": {
			"self.s.lowerAscii() == 'hello, world'", "self.s.upperAscii() == 'HELLO, WORLD'",
			"self.s.replace('World', 'CEL') == 'Hello, CEL'", "self.s.split(', ') == ['Hello', 'World']",
			"self.s.substring(7) == 'World'", "' x '.trim() == 'x'", "self.s.indexOf('o') == 4",
			"self.s.lastIndexOf('o') == 8", "self.s.charAt(0) == 'H'", "self.strs.join('-') == 'a-b-c'",
			"strings.quote('a') == '\"a\"'",
			"self.s.startsWith('Hello') && self.s.endsWith('World') && self.s.contains(', ')",
			"'%s=%d'.format(['x', 1]) == 'x=1'",
		},
		"lists": {
			"self.ints.sum() == 6", "self.ints.min() == 1", "self.ints.max() == 3", "!self.ints.isSorted()",
			"[1, 2, 2].isSorted()", "self.ints.indexOf(1) == 1", "[1, 2, 1].lastIndexOf(1) == 2",
			"self.ints.sort() == [1, 2, 3]", "self.ints.slice(1, 2) == [1]", "[[1], [2]].flatten() == [1, 2]",
			"[1, 1, 2].distinct() == [1, 2]", "lists.range(3) == [0, 1, 2]", "self.ints.reverse() == [2, 1, 3]",
			"self.ints.first().value() == 3", "self.ints.last().value() == 2",
			"self.strs.sortBy(s, s == 'a' ? 9 : 0) == ['b', 'c', 'a']", "['a', 'b'].min() == 'a'",
			"[duration('1s'), duration('2s')].sum() == duration('3s')",
		},
		"sets": {
			"sets.contains(self.ints, [1, 2])", "sets.equivalent(self.ints, [1, 2, 3])", "sets.intersects(self.ints, [3, 9])",
		},
		"comprehensions": {
			"self.ints.all(i, v, v > 0 && i < 3)", "self.ints.exists(i, v, i == 1 && v == 1)",
			"self.strs.transformList(i, v, i > 0, v + v) == ['bb', 'cc']",
			"self.ints.exists_one(x, x == 2)", "self.ints.filter(x, x > 1).size() == 2", "self.ints.map(x, x * 2).sum() == 12",
		},
		"optionals": {
			"has(self.s) && has(self.ints)", "optional.of(1).hasValue()", "self.?s.orValue('') == 'Hello, World'",
		},
		"regex": {
			"self.s.matches('^Hello')", "self.s.find('[A-Z][a-z]+') == 'Hello'", "self.s.findAll('[A-Z]') == ['H', 'W']",
			"self.s.findAll('[a-z]', 2) == ['e', 'l']", "self.s.find('[0-9]') == ''",
		},
		"urls": {
			"isURL('https://example.com:8080/a%20b?x=1&x=2')", "!isURL('not a url')",
			"url('https://example.com:8080/a%20b?x=1&x=2').getScheme() == 'https'",
			"url('https://example.com:8080/p').getHost() == 'example.com:8080'",
			"url('https://[::1]:8080/p').getHostname() == '::1'", "url('https://example.com:8080/p').getPort() == '8080'",
			"url('https://example.com/a%20b').getEscapedPath() == '/a%20b'",
			"url('https://example.com/?x=1&x=2').getQuery() == {'x': ['1', '2']}", "url('/relative/path').getHost() == ''",
		},
		"ip and cidr": {
			"isIP('10.0.0.1')", "!isIP('10.0.0.256')", "ip('10.0.0.1').family() == 4", "ip('::1').isLoopback()",
			"ip('10.0.0.1').isGlobalUnicast()", "ip('0.0.0.0').isUnspecified()", "ip('fe80::1').isLinkLocalUnicast()",
			"ip('ff02::1').isLinkLocalMulticast()", "ip.isCanonical('2001:db8::1')", "isCIDR('10.0.0.0/8')",
			"cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))", "cidr('10.0.0.0/8').containsIP('10.1.2.3')",
			"cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", "cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')",
			"cidr('10.0.0.0/8').prefixLength() == 8", "cidr('10.0.0.0/8').ip() == ip('10.0.0.0')",
			"string(ip('10.0.0.1')) == '10.0.0.1'",
		},
		"format": {
			"!format.dns1123Label().validate('my-name').hasValue()", "format.dns1123Label().validate('My_Name').hasValue()",
			"!format.dns1123Subdomain().validate('a.example.com').hasValue()", "format.dns1035Label().validate('1abc').hasValue()",
			"!format.qualifiedName().validate('example.com/My.Name').hasValue()", "format.qualifiedName().validate('/x').hasValue()",
			"!format.dns1123LabelPrefix().validate('my-prefix-').hasValue()", "!format.dns1123SubdomainPrefix().validate('a.b-').hasValue()",
			"!format.dns1035LabelPrefix().validate('abc-').hasValue()", "!format.labelValue().validate('').hasValue()",
			"format.labelValue().validate('-x').hasValue()", "!format.uri().validate('https://x.io').hasValue()",
			"!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()", "format.uuid().validate('x').hasValue()",
			"!format.byte().validate('aGVsbG8=').hasValue()", "format.byte().validate('%%').hasValue()",
			"!format.date().validate('2021-01-01').hasValue()", "!format.datetime().validate('2021-01-01T00:00:00Z').hasValue()",
			"format.named('dns1123Label').hasValue()", "!format.named('nope').hasValue()",
			"format.dns1123Label().validate('" + strings.Repeat("a", 64) + "').value().size() == 1",
			"format.dns1123Label() == format.named('dns1123Label').value()",
		},
		"semver": {
			"isSemver('1.2.3')", "!isSemver('v1.2')", "isSemver('v1.2', true)", "semver('1.2.3').major() == 1",
			"semver('1.2.3').minor() == 2", "semver('1.2.3').patch() == 3", "semver('1.2.3').isGreaterThan(semver('1.2.3-rc.1'))",
			"semver('1.2.3-alpha').isLessThan(semver('1.2.3-alpha.1'))", "semver('1.10.0').compareTo(semver('1.9.0')) == 1",
			"semver('v01.2', true) == semver('1.2.0')", "semver('1.0.0-rc.2').isGreaterThan(semver('1.0.0-rc.10')) == false",
		},
	}
	for lib, list := range rules {
		for _, rule := range list {
			t.Run(lib+"/"+rule, func(t *testing.T) {
				if got := evalRule(t, rule); got != "" {
					t.Errorf("%s", got)
				}
			})
		}
	}
}

// TestLibraryErrors checks functions given bad input fail the rule with
// an evaluation error rather than passing.
func TestLibraryErrors(t *testing.T) {
	tests := map[string]string{
		"url('not a url').getScheme() == ''":    "URL parse error",
		"semver('1.2').major() == 1":            "string_to_semver overload failed",
		"ip('300.1.1.1').family() == 4":         "invalid ip argument",
		"ip(self.s).family() == 4":              `IP Address "Hello, World" parse error`,
		"cidr(self.s).prefixLength() == 0":      `CIDR "Hello, World" parse error`,
		"self.ints.filter(x, x > 9).min() == 0": "min called on empty list",
		"self.s.find('[') == ''":                "error parsing regexp",
	}
	for rule, want := range tests {
		t.Run(rule, func(t *testing.T) {
			if got := evalRule(t, rule); !strings.Contains(got, want) {
				t.Errorf("got %q, want it to contain %q", got, want)
			}
		})
	}
}
