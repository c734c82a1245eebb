package schema

import (
	"net"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The formats of network names and addresses: hostname, ipv4, ipv6,
// cidr and mac.

// isHostname: one label, or labels and a top-level domain of letters
// after dots; labels are letters, digits and symbols of any script
// with inner dashes (a lone label may also end in one), at most 63
// bytes each and 255 in all.
func isHostname(s string) bool {
	if len(s) > 255 {
		return false
	}
	labels := strings.Split(s, ".")
	for _, l := range labels {
		if len(l) > 63 {
			return false
		}
	}
	if len(labels) == 1 {
		return isLoneLabel(s)
	}
	for _, l := range labels[:len(labels)-1] {
		if !isDomainLabel(l) {
			return false
		}
	}
	return isTopLevelDomain(labels[len(labels)-1])
}

// isHostRune is a character a hostname label is made of.
func isHostRune(r rune) bool {
	return r < utf8.RuneSelf && isAlnum(byte(r)) || unicode.IsLetter(r) || unicode.IsSymbol(r)
}

// isLoneLabel: a host character, an optional dash, then up to 62 more.
func isLoneLabel(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !isHostRune(r) {
		return false
	}
	rest := strings.TrimPrefix(s[n:], "-")
	count := 0
	for _, r := range rest {
		if count++; count > 62 || !isHostRune(r) {
			return false
		}
	}
	return true
}

// isDomainLabel: up to 63 characters, host characters or inner dashes.
func isDomainLabel(s string) bool {
	count, last := 0, rune(0)
	for _, r := range s {
		count++
		if count > 63 || !isHostRune(r) && (r != '-' || count == 1) {
			return false
		}
		last = r
	}
	return count > 0 && last != '-'
}

// isTopLevelDomain: 2 to 63 letters.
func isTopLevelDomain(s string) bool {
	count := 0
	for _, r := range s {
		if count++; !unicode.IsLetter(r) {
			return false
		}
	}
	return count >= 2 && count <= 63
}

// isIPv4 takes any address with a dot that kube's lenient parser
// takes: leading zeros are allowed, and so is an IPv6 address ending
// in an IPv4 one.
func isIPv4(s string) bool {
	return sloppyIP(s) && strings.Contains(s, ".")
}

// isIPv6 is Go's parser's, with a colon.
func isIPv6(s string) bool {
	return net.ParseIP(s) != nil && strings.Contains(s, ":")
}

func isMAC(s string) bool {
	_, err := net.ParseMAC(s)
	return err == nil
}

// The lenient IP parser kube-apiserver's ipv4 and cidr formats use (Go's
// parser as it was before Go 1.17): decimal and hex numbers may have
// any number of leading zeros, and nothing else is more lenient than
// Go's own parser.

// sloppyIP parses s as an IPv4 address if a dot comes before any
// colon, as an IPv6 one if a colon does.
func sloppyIP(s string) bool {
	switch i := strings.IndexAny(s, ".:"); {
	case i < 0:
		return false
	case s[i] == '.':
		return sloppyIPv4(s)
	}
	return sloppyIPv6(s)
}

// isCIDR: an address, IPv4 or else IPv6, a slash and a prefix length
// that fits it.
func isCIDR(s string) bool {
	addr, length, ok := strings.Cut(s, "/")
	if !ok {
		return false
	}
	bits := 32
	if !sloppyIPv4(addr) {
		if !sloppyIPv6(addr) {
			return false
		}
		bits = 128
	}
	n, used, ok := leadingNumber(length, 10)
	return ok && used == len(length) && n <= bits
}

// sloppyIPv4: four decimal numbers up to 255 joined by dots.
func sloppyIPv4(s string) bool {
	for i := range 4 {
		if i > 0 {
			rest, ok := strings.CutPrefix(s, ".")
			if !ok {
				return false
			}
			s = rest
		}
		n, used, ok := leadingNumber(s, 10)
		if !ok || n > 0xFF {
			return false
		}
		s = s[used:]
	}
	return s == ""
}

// sloppyIPv6: up to eight hex groups joined by colons, one "::"
// standing for the zero groups left out, the last two groups possibly
// written as an IPv4 address.
func sloppyIPv6(s string) bool {
	const size = 16 // bytes
	elided := false
	if rest, ok := strings.CutPrefix(s, "::"); ok {
		if rest == "" {
			return true
		}
		elided, s = true, rest
	}
	filled := 0
	for filled < size {
		n, used, ok := leadingNumber(s, 16)
		if !ok || n > 0xFFFF {
			return false
		}
		if used < len(s) && s[used] == '.' {
			if !elided && filled != size-4 || filled+4 > size || !sloppyIPv4(s) {
				return false
			}
			filled, s = filled+4, ""
			break
		}
		filled += 2
		if s = s[used:]; s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return false
		}
		s = s[1:]
		if s[0] == ':' {
			if elided {
				return false
			}
			elided, s = true, s[1:]
			if s == "" {
				break
			}
		}
	}
	switch {
	case s != "":
		return false
	case filled < size:
		return elided
	}
	return !elided
}

// leadingNumber reads the number s starts with in base 10 or 16: its
// value, how many bytes it takes, and whether there is one. As in Go's
// old parser, one that reaches 0xFFFFFF is refused, whatever follows.
func leadingNumber(s string, base int) (n, used int, ok bool) {
	const limit = 0xFFFFFF
	for used < len(s) {
		d := digitValue(s[used])
		if d >= base {
			break
		}
		if n = n*base + d; n >= limit {
			return 0, used, false
		}
		used++
	}
	return n, used, used > 0
}

// digitValue is the value of a decimal or hex digit, 99 for others.
func digitValue(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return 99
}
