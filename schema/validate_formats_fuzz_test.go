package schema

import (
	"encoding/hex"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/status"
)

// The rules kube-apiserver states its string formats with: regular
// expressions, and the lenient IP parser's grammar restated as Go's
// strict parser on the address with its numbers' leading zeros
// removed. FuzzStringFormats holds each hand-written check to them.
var (
	rxUUID       = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	rxUUID3      = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	rxUUID4      = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	rxUUID5      = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	rxHostname   = regexp.MustCompile(`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`)
	rxCreditCard = regexp.MustCompile(`^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$`)
	rxNotDigits  = regexp.MustCompile(`[^0-9]+`)
	rxISBNSpace  = regexp.MustCompile(`[\s-]+`)
	rxISBN10     = regexp.MustCompile(`^(?:[0-9]{9}X|[0-9]{10})$`)
	rxISBN13     = regexp.MustCompile(`^(?:[0-9]{13})$`)
	rxSSN        = regexp.MustCompile(`^\d{3}[- ]?\d{2}[- ]?\d{4}$`)
	rxHexColor   = regexp.MustCompile(`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	rxRGBColor   = regexp.MustCompile(`^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$`)
	rxBase64     = regexp.MustCompile(`^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$`)
	rxTime       = regexp.MustCompile(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)
	rxDuration   = regexp.MustCompile(`((\d+)\s*([A-Za-zµ]+))`)
	rxShortName  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	rxLongName   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	rxZeros      = regexp.MustCompile(`(^|[^0-9a-fA-F])0+([0-9a-fA-F])`)
)

// stated is each format's rule as stated, for the formats checked by
// hand-written code.
var stated = map[string]func(string) bool{
	"bsonobjectid": func(s string) bool { b, err := hex.DecodeString(s); return err == nil && len(b) == 12 },
	"hostname": func(s string) bool {
		if !rxHostname.MatchString(s) || len(s) > 255 {
			return false
		}
		for _, l := range strings.Split(s, ".") {
			if len(l) > 63 {
				return false
			}
		}
		return true
	},
	"ipv4": func(s string) bool {
		return net.ParseIP(withoutLeadingZeros(s)) != nil && strings.Contains(s, ".")
	},
	"cidr": func(s string) bool {
		_, _, err := net.ParseCIDR(withoutLeadingZeros(s))
		return err == nil
	},
	"uuid":         rxUUID.MatchString,
	"uuid3":        rxUUID3.MatchString,
	"uuid4":        rxUUID4.MatchString,
	"uuid5":        rxUUID5.MatchString,
	"isbn10":       statedISBN10,
	"isbn13":       statedISBN13,
	"isbn":         func(s string) bool { return statedISBN10(s) || statedISBN13(s) },
	"creditcard":   statedCreditCard,
	"ssn":          func(s string) bool { return len(s) == 11 && rxSSN.MatchString(s) },
	"hexcolor":     rxHexColor.MatchString,
	"rgbcolor":     rxRGBColor.MatchString,
	"byte":         rxBase64.MatchString,
	"datetime":     statedDateTime,
	"duration":     statedDuration,
	"k8sshortname": func(s string) bool { return len(s) <= 63 && rxShortName.MatchString(s) },
	"k8slongname":  func(s string) bool { return len(s) <= 253 && rxLongName.MatchString(s) },
}

// withoutLeadingZeros drops the leading zeros of every number in an
// address, which is what the lenient parser allows beyond Go's.
func withoutLeadingZeros(s string) string {
	for {
		t := rxZeros.ReplaceAllString(s, "$1$2")
		if t == s {
			return s
		}
		s = t
	}
}

func statedISBN10(s string) bool {
	d := rxISBNSpace.ReplaceAllString(s, "")
	if !rxISBN10.MatchString(d) {
		return false
	}
	sum := 0
	for i, c := range d {
		n := int(c - '0')
		if c == 'X' {
			n = 10
		}
		sum += (i + 1) * n
	}
	return sum%11 == 0
}

func statedISBN13(s string) bool {
	d := rxISBNSpace.ReplaceAllString(s, "")
	if !rxISBN13.MatchString(d) {
		return false
	}
	sum := 0
	for i, c := range d {
		w := 1
		if i%2 == 1 {
			w = 3
		}
		sum += w * int(c-'0')
	}
	return sum%10 == 0
}

func statedCreditCard(s string) bool {
	d := rxNotDigits.ReplaceAllString(s, "")
	if !rxCreditCard.MatchString(d) {
		return false
	}
	sum := 0
	for i := range d {
		n := int(d[len(d)-1-i] - '0')
		if i%2 == 1 {
			n = n*2%10 + n*2/10
		}
		sum += n
	}
	return sum%10 == 0
}

func statedDateTime(s string) bool {
	if len(s) < 4 {
		return false
	}
	parts := strings.Split(strings.ToLower(s), "t")
	if len(parts) < 2 {
		return false
	}
	if _, err := time.Parse("2006-01-02", parts[0]); err != nil {
		return false
	}
	m := rxTime.FindStringSubmatch(parts[1])
	return m != nil && m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
}

func statedDuration(s string) bool {
	if _, err := time.ParseDuration(s); err == nil {
		return true
	}
	units := [][]string{{"ns", "nano"}, {"us", "µs", "micro"}, {"ms", "milli"}, {"s", "sec"}, {"m", "min"},
		{"h", "hr", "hour"}, {"d", "day"}, {"w", "wk", "week"}}
	ok := false
	for _, m := range rxDuration.FindAllStringSubmatch(s, -1) {
		if _, err := strconv.Atoi(m[2]); err != nil {
			return false
		}
		unit := strings.ToLower(m[3])
		for _, names := range units {
			for i, name := range names {
				if i == len(names)-1 && strings.HasPrefix(unit, name) || strings.EqualFold(name, unit) {
					ok = true
				}
			}
		}
	}
	return ok
}

// FuzzStringFormats holds each hand-written format check to the rule
// kube-apiserver states it with, and validates the value against every
// format: no panic, and at most one error, a type error at the field.
func FuzzStringFormats(f *testing.F) {
	for _, seed := range []string{
		"", "x", "507f1f77bcf86cd799439011", "a.example.com", "日本.jp", "a-", "01.2.3.4", "::ffff:1.2.3.4",
		"00000::1.2.3.4", "010.0.0.0/008", "::/129", "123e4567-e89b-42d3-a456-426614174000", "0-8044-2957-X",
		"978 0 321 75104 1", "x4111111111111111y", "123 45-6789", "#FFF", "rgb( 1 ,2,\t255)", "YWI=",
		"2020-01-01T00:00:00x5Z", "2020-01-01t23:59:59+99:99tz", "x 3 days y", "1h 99999999999999999999x",
		"10µs", "5 Seconds", "a.b-c", strings.Repeat("a", 64),
	} {
		f.Add(seed)
	}
	props := map[string]*Schema{}
	for name := range stated {
		props[name] = &Schema{Type: "string", Format: name}
	}
	v, err := NewValidator(&Schema{Type: "object", Properties: props})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, rule := range stated {
			if got, want := stringFormat(name)(s), rule(s); got != want {
				t.Errorf("%s %q: got %t, kube's rule says %t", name, s, got, want)
			}
		}
		for _, e := range v.Validate(status.Path{}, map[string]any{"isbn": s, "uuid": s, "datetime": s}) {
			if e.Type != "FieldValueTypeInvalid" || !strings.Contains(e.Detail, "in body must be of type") {
				t.Errorf("%q: unexpected %v", s, e)
			}
		}
	})
}
