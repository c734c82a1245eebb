package pipeline

import (
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Name rules, as Kubernetes applies them to object names.
const (
	maxNameLength = 253
	// maxGeneratedNameLength leaves room for the random suffix.
	maxGeneratedNameLength = maxNameLength - randomSuffixLength
	randomSuffixLength     = 5
	// suffixAlphabet is kube-apiserver's: no vowels (no accidental
	// words) and no confusable characters.
	suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"
)

// generateName appends a random suffix to base, truncating base so that
// the result is a valid length.
func generateName(base string) string {
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	var b [randomSuffixLength]byte
	_, _ = rand.Read(b[:])
	out := make([]byte, 0, len(base)+randomSuffixLength)
	out = append(out, base...)
	for _, c := range b {
		out = append(out, suffixAlphabet[int(c)%len(suffixAlphabet)])
	}
	return string(out)
}

// validateObjectMeta checks the name, generateName and namespace as
// kube-apiserver does; names are DNS subdomains unless the kind checks
// them its own way (nameErrors not nil).
func validateObjectMeta(m *meta.ObjectMeta, namespaced bool, nameErrors func(string) []string) status.FieldErrors {
	if nameErrors == nil {
		nameErrors = subdomainErrors
	}
	var errs status.FieldErrors
	p := status.NewPath("metadata")
	if m.Name == "" && m.GenerateName == "" {
		errs = append(errs, status.Required(p.Child("name"), "name or generateName is required"))
	}
	if m.Name != "" {
		for _, msg := range nameErrors(m.Name) {
			errs = append(errs, status.InvalidValue(p.Child("name"), m.Name, msg))
		}
	}
	if m.GenerateName != "" && m.Name == "" {
		// A generateName prefix may end in '-' or '.', so validate it as
		// the name it would produce.
		for _, msg := range nameErrors(strings.TrimRight(m.GenerateName, "-.") + "x") {
			errs = append(errs, status.InvalidValue(p.Child("generateName"), m.GenerateName, msg))
		}
	}
	if namespaced {
		if m.Namespace == "" {
			errs = append(errs, status.Required(p.Child("namespace"), ""))
		} else if !isDNSLabel(m.Namespace) {
			errs = append(errs, status.InvalidValue(p.Child("namespace"), m.Namespace,
				"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"))
		}
	}
	for k, v := range m.Labels {
		if msg := labelValueError(v); msg != "" {
			errs = append(errs, status.InvalidValue(p.Child("labels"), v, msg))
		}
		_ = k
	}
	return errs
}

func subdomainErrors(name string) []string {
	var msgs []string
	if len(name) > maxNameLength {
		msgs = append(msgs, fmt.Sprintf("must be no more than %d characters", maxNameLength))
	}
	if !IsDNSSubdomain(name) {
		msgs = append(msgs, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
	}
	return msgs
}

// IsDNSSubdomain reports whether s matches dnsSubdomain: dot-separated
// labels of lowercase letters, digits and '-', each starting and ending
// with a letter or digit. Every create checks its name and its label
// keys' prefixes, for which the regular expression took most of the
// time of validating metadata.
func IsDNSSubdomain(s string) bool {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		if i == start || s[start] == '-' || s[i-1] == '-' {
			return false // an empty label, or one starting or ending with '-'
		}
		start = i + 1
	}
	return true
}

func labelValueError(v string) string {
	if len(v) > 63 {
		return "must be no more than 63 characters"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && ((i == 0 || i == len(v)-1) || (c != '-' && c != '_' && c != '.')) {
			return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
		}
	}
	return ""
}

// NewUID returns a random (version 4) UUID.
func NewUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return FormatUID(b)
}

// FormatUID writes a UUID's bytes as its canonical text, as the %x
// verb writes each group, with one allocation.
func FormatUID(b [16]byte) string {
	const digits = "0123456789abcdef"
	var out [36]byte
	at := 0
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out[at] = '-'
			at++
		}
		out[at], out[at+1] = digits[c>>4], digits[c&0x0f]
		at += 2
	}
	return string(out[:])
}

// isDNSLabel reports whether s is a DNS label (RFC 1123): at most 63
// lower-case letters, digits and dashes, starting and ending with a
// letter or digit.
func isDNSLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
