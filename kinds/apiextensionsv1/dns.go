package apiextensionsv1

import (
	"fmt"
	"regexp"
	"strings"
)

// The name checks kube-apiserver words its messages with (apimachinery's
// util/validation): each returns every problem of a value, in kube's
// order, an empty list when there is none.

const (
	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
)

var (
	dns1035Pattern          = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	dns1123SubdomainPattern = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
)

// dns1035LabelErrors checks a DNS-1035 label: a version, a plural, a
// short name or a category.
func dns1035LabelErrors(v string) []string {
	var msgs []string
	if len(v) > 63 {
		msgs = append(msgs, maxLenMessage(63))
	}
	if !dns1035Pattern.MatchString(v) {
		msgs = append(msgs, regexMessage("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
			dns1035LabelFmt, "my-name", "abc-123"))
	}
	return msgs
}

// dns1123SubdomainErrors checks a DNS-1123 subdomain: a group, an object
// name.
func dns1123SubdomainErrors(v string) []string {
	var msgs []string
	if len(v) > 253 {
		msgs = append(msgs, maxLenMessage(253))
	}
	if !dns1123SubdomainPattern.MatchString(v) {
		msgs = append(msgs, regexMessage("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
			dns1123SubdomainFmt, "example.com"))
	}
	return msgs
}

// nameIsDNSSubdomainErrors checks an object name, or a generateName
// prefix (which may end in a dash) when prefix is set.
func nameIsDNSSubdomainErrors(name string, prefix bool) []string {
	if prefix && strings.HasSuffix(name, "-") {
		name = name[:len(name)-1] + "a"
	}
	return dns1123SubdomainErrors(name)
}

func maxLenMessage(n int) string { return fmt.Sprintf("must be no more than %d characters", n) }

// regexMessage words a pattern's refusal with examples of what it takes.
func regexMessage(msg, pattern string, examples ...string) string {
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString(" (e.g. ")
	for i, e := range examples {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString("'" + e + "', ")
	}
	b.WriteString("regex used for validation is '" + pattern + "')")
	return b.String()
}
