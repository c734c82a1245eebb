package schema

import (
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kapi-dev/kapi/status"
)

// String formats, checked as kube-apiserver checks them for custom
// resources: a string that is not of its node's format is
//
//	spec.d: Invalid value: "x": spec.d in body must be of type date-time: "x"
//
// (a FieldValueTypeInvalid cause naming the format as the schema spells
// it), after the string's length and pattern and before its enum. Only
// strings are checked: null, numbers, objects and lists are not (a
// value of another type is refused, or not, by its type check). Only
// the formats kube-apiserver keeps are checked, named without regard
// to dashes ("date-time", "datetime", "k8s-short-name"). Each check
// accepts exactly what kube-apiserver's does, quirks included: an
// ipv4 may be an IPv4-mapped IPv6 address, a duration may be any text
// holding a number and a unit, a credit card number is its digits
// wherever they are.

// stringFormat returns the check of the string format named (without
// dashes), nil for a format kube-apiserver does not check.
func stringFormat(name string) func(string) bool {
	switch name {
	case "bsonobjectid":
		return isBSONObjectID
	case "uri":
		return isRequestURI
	case "email":
		return isEmail
	case "hostname":
		return isHostname
	case "ipv4":
		return isIPv4
	case "ipv6":
		return isIPv6
	case "cidr":
		return isCIDR
	case "mac":
		return isMAC
	case "uuid", "uuid3", "uuid4", "uuid5":
		return uuidCheck(name)
	case "isbn":
		return isISBN
	case "isbn10":
		return isISBN10
	case "isbn13":
		return isISBN13
	case "creditcard":
		return isCreditCard
	case "ssn":
		return isSSN
	case "hexcolor":
		return isHexColor
	case "rgbcolor":
		return isRGBColor
	case "byte":
		return isBase64
	case "password":
		return func(string) bool { return true }
	case "date":
		return isDate
	case "duration":
		return isDuration
	case "datetime":
		return isDateTime
	case "k8sshortname":
		return isShortName
	case "k8slongname":
		return isLongName
	}
	return nil
}

// formatCheckOf is the check of s's string format, nil when s has
// none that kube-apiserver checks.
func formatCheckOf(s *Schema) func(string) bool {
	return stringFormat(strings.ReplaceAll(checkedFormat(s), "-", ""))
}

// format checks the string x against its node's format.
func (v *Validator) format(s *Schema, p *vpath, x string, errs *status.FieldErrors) {
	if check := v.formats[s]; check != nil && !check(x) {
		*errs = append(*errs, status.TypeInvalid(p.path(), x,
			fmt.Sprintf("%s in body must be of type %s: %q", name(p.path()), s.Format, x)))
	}
}

// formatChecks is how many more checks kube-apiserver counts, to pick
// the closest alternative of an anyOf or oneOf, for x at a node with a
// string format: one for the format's check of a string, and those of
// the type check a node without a type has only because of its format
// (two when it passes, for a string or a list; one when it fails).
func formatChecks(s *Schema, x any) int {
	if x == nil || formatCheckOf(s) == nil {
		return 0
	}
	n := 0
	if _, ok := x.(string); ok {
		n++
	}
	if s.Type == "" && !s.XIntOrString {
		switch x.(type) {
		case string, []any:
			n += 2
		default:
			n++
		}
	}
	return n
}

// isBSONObjectID: twelve bytes in hex.
func isBSONObjectID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func isRequestURI(s string) bool {
	_, err := url.ParseRequestURI(s)
	return err == nil
}

// isEmail takes what net/mail does, a display name and angle brackets
// included.
func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address != ""
}

// uuidCheck checks a UUID of any case, its five groups of hex digits
// optionally joined by dashes, of the version the format names, if
// any, and for versions 4 and 5 of RFC 4122's variant.
func uuidCheck(format string) func(string) bool {
	var version byte
	if len(format) == len("uuid3") {
		version = format[4]
	}
	return func(s string) bool { return isUUID(s, version) }
}

func isUUID(s string, version byte) bool {
	var starts [5]int
	i := 0
	for g, n := range [5]int{8, 4, 4, 4, 12} {
		if g > 0 && i < len(s) && s[i] == '-' {
			i++
		}
		starts[g] = i
		for end := i + n; i < end; i++ {
			if i >= len(s) || !isHex(s[i]) {
				return false
			}
		}
	}
	if i != len(s) {
		return false
	}
	if version == 0 {
		return true
	}
	if s[starts[2]] != version {
		return false
	}
	switch s[starts[3]] | 0x20 { // the variant, in lower case
	case '8', '9', 'a', 'b':
		return true
	}
	return version == '3'
}

// isbnDigits is s without its whitespace and dashes.
func isbnDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || isSpace(r) {
			return -1
		}
		return r
	}, s)
}

func isISBN(s string) bool { return isISBN10(s) || isISBN13(s) }

// isISBN10: nine digits and a check digit (X for 10), whose weighted
// sum is a multiple of 11.
func isISBN10(s string) bool {
	d := isbnDigits(s)
	if len(d) != 10 || !allDigits(d[:9]) || !isDigit(d[9]) && d[9] != 'X' {
		return false
	}
	sum := 0
	for i := range 9 {
		sum += (i + 1) * int(d[i]-'0')
	}
	last := 10
	if d[9] != 'X' {
		last = int(d[9] - '0')
	}
	return (sum+10*last)%11 == 0
}

// isISBN13: thirteen digits, the last the check digit of the first
// twelve weighted 1 and 3.
func isISBN13(s string) bool {
	d := isbnDigits(s)
	if len(d) != 13 || !allDigits(d) {
		return false
	}
	sum := 0
	for i := range 12 {
		sum += (1 + 2*(i%2)) * int(d[i]-'0')
	}
	return int(d[12]-'0') == (10-sum%10)%10
}

// isCreditCard: the digits of s, whatever is between them, are a
// number of one of the card issuers' prefixes and lengths with a valid
// Luhn check digit.
func isCreditCard(s string) bool {
	d := strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && isDigit(byte(r)) {
			return r
		}
		return -1
	}, s)
	return cardNumberShape(d) && luhn(d)
}

// cardNumberShape reports whether the digits d have a known issuer's
// prefix and length.
func cardNumberShape(d string) bool {
	n := len(d)
	switch {
	case n < 13:
		return false
	case d[0] == '4':
		return n == 13 || n == 16
	case d[0] == '5':
		return n == 16 && d[1] >= '1' && d[1] <= '5'
	case strings.HasPrefix(d, "6011"), strings.HasPrefix(d, "65"):
		return n == 16
	case strings.HasPrefix(d, "34"), strings.HasPrefix(d, "37"):
		return n == 15
	case strings.HasPrefix(d, "30"):
		return n == 14 && d[2] <= '5'
	case strings.HasPrefix(d, "36"), strings.HasPrefix(d, "38"):
		return n == 14
	case strings.HasPrefix(d, "2131"), strings.HasPrefix(d, "1800"):
		return n == 15
	case strings.HasPrefix(d, "35"):
		return n == 16
	}
	return false
}

// luhn reports whether the digits d end in their Luhn check digit.
func luhn(d string) bool {
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if (len(d)-1-i)%2 == 1 {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

// isSSN: nine digits as 3, 2 and 4, each joined by a dash or a space.
func isSSN(s string) bool {
	if len(s) != 11 || !isSSNSeparator(s[3]) || !isSSNSeparator(s[6]) {
		return false
	}
	return allDigits(s[:3]) && allDigits(s[4:6]) && allDigits(s[7:])
}

func isSSNSeparator(c byte) bool { return c == '-' || c == ' ' }

// isHexColor: 3 or 6 hex digits, after an optional #.
func isHexColor(s string) bool {
	s = strings.TrimPrefix(s, "#")
	if len(s) != 3 && len(s) != 6 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

// isRGBColor: rgb(R,G,B), each a number from 0 to 255 without leading
// zeros, with whitespace allowed around them.
func isRGBColor(s string) bool {
	rest, ok := strings.CutPrefix(s, "rgb(")
	if !ok {
		return false
	}
	for i, sep := range []byte{',', ',', ')'} {
		rest = strings.TrimLeftFunc(rest, isSpace)
		n := digitRun(rest)
		if n == 0 || n > 1 && rest[0] == '0' || n > 3 || atoiDigits(rest[:n]) > 255 {
			return false
		}
		rest = strings.TrimLeftFunc(rest[n:], isSpace)
		if rest == "" || rest[0] != sep {
			return false
		}
		rest = rest[1:]
		if i == 2 {
			return rest == ""
		}
	}
	return false
}

// isBase64: standard base64 with its padding, one block at least.
func isBase64(s string) bool {
	n := len(s)
	if n == 0 || n%4 != 0 {
		return false
	}
	for i := 0; i < n; i++ {
		c := s[i]
		switch {
		case isAlnum(c) || c == '+' || c == '/':
		case c == '=' && (i == n-1 || i == n-2 && s[n-1] == '='):
		default:
			return false
		}
	}
	return true
}

// isDate: an RFC 3339 full-date, a day the month has.
func isDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// isDateTime takes what kube-apiserver's date-time check takes: in
// lower case, a date before the first "t" and, up to the next "t", a
// time HH:MM:SS (23:59:59 at most), optionally a character and digits,
// and "z" or an offset ±HH:MM. An ASCII string is read without
// lowering it, its "t" and "z" in either case.
func isDateTime(s string) bool {
	if len(s) < 4 {
		return false
	}
	if !isASCII(s) {
		s = strings.ToLower(s) // as kube does: some runes change length
	}
	i := indexFold(s, 't')
	if i < 0 || !isDate(s[:i]) {
		return false
	}
	rest := s[i+1:]
	if j := indexFold(rest, 't'); j >= 0 {
		rest = rest[:j]
	}
	if len(rest) < 8 || rest[2] != ':' || rest[5] != ':' {
		return false
	}
	hh, mm, ss := rest[0:2], rest[3:5], rest[6:8]
	if !allDigits(hh) || !allDigits(mm) || !allDigits(ss) || hh > "23" || mm > "59" || ss > "59" {
		return false
	}
	fraction, ok := cutZone(rest[8:])
	return ok && isFraction(fraction)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// indexFold is the index of the first ASCII letter c (lower case) or
// its upper case in s, or -1.
func indexFold(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i]|0x20 == c {
			return i
		}
	}
	return -1
}

// cutZone returns s before its zone, "z" or ±HH:MM, and whether it
// has one.
func cutZone(s string) (string, bool) {
	if n := len(s); n > 0 && s[n-1]|0x20 == 'z' {
		return s[:n-1], true
	}
	n := len(s)
	if n < 6 || s[n-6] != '+' && s[n-6] != '-' || s[n-3] != ':' ||
		!allDigits(s[n-5:n-3]) || !allDigits(s[n-2:]) {
		return "", false
	}
	return s[:n-6], true
}

// isFraction: empty, or any character but a newline and then digits.
func isFraction(s string) bool {
	if s == "" {
		return true
	}
	r, n := utf8.DecodeRuneInString(s)
	return r != '\n' && len(s) > n && allDigits(s[n:])
}

// isDuration takes what Go's time.ParseDuration takes, and any text
// holding a number followed by a unit ("3 days", "1 hour and 5 mins"),
// provided none of its numbers followed by letters overflows.
func isDuration(s string) bool {
	if _, err := time.ParseDuration(s); err == nil {
		return true
	}
	found := false
	for rest := s; rest != ""; {
		number, unit, after, ok := nextDurationTerm(rest)
		if !ok {
			break
		}
		rest = after
		if _, err := strconv.Atoi(number); err != nil {
			return false
		}
		found = found || isDurationUnit(strings.ToLower(unit))
	}
	return found
}

// nextDurationTerm finds the first run of digits in s followed,
// after optional whitespace, by letters (ASCII or µ): the digits,
// the letters, and what follows them.
func nextDurationTerm(s string) (number, unit, rest string, ok bool) {
	for i := 0; i < len(s); {
		n := digitRun(s[i:])
		if n == 0 {
			i++
			continue
		}
		j := i + n
		for j < len(s) && isSpace(rune(s[j])) {
			j++
		}
		k := j
		for k < len(s) {
			r, w := utf8.DecodeRuneInString(s[k:])
			if !isDurationLetter(r) {
				break
			}
			k += w
		}
		if k > j {
			return s[i : i+n], s[j:k], s[k:], true
		}
		i = j
	}
	return "", "", "", false
}

func isDurationLetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == 'µ'
}

// isDurationUnit reports whether the lower-case unit names one: an
// abbreviation, or a word starting with a unit's name ("seconds").
func isDurationUnit(unit string) bool {
	switch unit {
	case "ns", "us", "µs", "ms", "s", "m", "h", "hr", "d", "w", "wk":
		return true
	}
	for _, word := range []string{"nano", "micro", "milli", "sec", "min", "hour", "day", "week"} {
		if strings.HasPrefix(unit, word) {
			return true
		}
	}
	return false
}

// isShortName: a DNS label in lower case, at most 63 characters.
func isShortName(s string) bool {
	return len(s) <= 63 && isNameLabel(s)
}

// isLongName: lower-case DNS labels of any length joined by dots, at
// most 253 characters.
func isLongName(s string) bool {
	if len(s) > 253 {
		return false
	}
	for {
		label, rest, more := strings.Cut(s, ".")
		if !isNameLabel(label) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// isNameLabel: lower-case letters, digits and inner dashes.
func isNameLabel(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || isDigit(c) || c == '-') {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

func isAlnum(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z' }

// isSpace is whitespace as regular expressions' \s: ASCII only.
func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

func allDigits(s string) bool {
	return digitRun(s) == len(s)
}

// digitRun is the number of decimal digits s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// atoiDigits is the value of a few decimal digits.
func atoiDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = 10*n + int(s[i]-'0')
	}
	return n
}
