package openapi

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// anyYAML renders a JSON value as the YAML text gnostic keeps in an Any
// message (extensions, enum values, defaults): block style with
// four-space indentation, flow style only for empty collections, each
// string plain unless YAML would read it as something else or its
// characters forbid it. Clients compare these bytes' hash, so the text
// is the one gnostic's YAML encoder writes for the same JSON.
func anyYAML(n *jsonNode) string {
	var b strings.Builder
	switch {
	case n.isEmptyCollection() && n.kind == jsonObject:
		b.WriteString("{}\n")
	case n.isEmptyCollection():
		b.WriteString("[]\n")
	case n.kind == jsonObject:
		writeYAMLMap(&b, n, 0, false)
	case n.kind == jsonArray:
		writeYAMLSeq(&b, n, 0, false)
	default:
		writeYAMLScalar(&b, n, 4, false)
	}
	return b.String()
}

// writeYAMLMap writes a non-empty mapping whose keys sit at column
// indent; inline says the first key follows a sequence's "- ".
func writeYAMLMap(b *strings.Builder, n *jsonNode, indent int, inline bool) {
	for i, k := range n.keys {
		if i > 0 || !inline {
			b.WriteString(strings.Repeat(" ", indent))
		}
		b.WriteString(yamlScalarText(k, true))
		b.WriteByte(':')
		// A mapping's values align to the next multiple of four, even
		// when its keys follow a sequence's dash.
		next := 4 * ((indent + 4) / 4)
		writeYAMLValue(b, n.elems[i], next, next, false)
	}
}

// writeYAMLSeq writes a non-empty sequence whose dashes sit at column
// indent; inline says the first dash follows another dash.
func writeYAMLSeq(b *strings.Builder, n *jsonNode, indent int, inline bool) {
	for i, e := range n.elems {
		if i > 0 || !inline {
			b.WriteString(strings.Repeat(" ", indent))
		}
		b.WriteByte('-')
		writeYAMLValue(b, e, indent+2, indent+2, true)
	}
}

// writeYAMLValue writes the value after "key:" or "-": nested
// collections at column nested, on the next line or, inline, on the
// dash's; block scalars' lines at column text.
func writeYAMLValue(b *strings.Builder, v *jsonNode, nested, text int, inline bool) {
	switch {
	case v.isEmptyCollection() && v.kind == jsonObject:
		b.WriteString(" {}\n")
	case v.isEmptyCollection():
		b.WriteString(" []\n")
	case v.kind == jsonObject && !inline:
		b.WriteByte('\n')
		writeYAMLMap(b, v, nested, false)
	case v.kind == jsonArray && !inline:
		b.WriteByte('\n')
		writeYAMLSeq(b, v, nested, false)
	case v.kind == jsonObject:
		b.WriteByte(' ')
		writeYAMLMap(b, v, nested, true)
	case v.kind == jsonArray:
		b.WriteByte(' ')
		writeYAMLSeq(b, v, nested, true)
	default:
		b.WriteByte(' ')
		writeYAMLScalar(b, v, text, true)
	}
}

// writeYAMLScalar writes a scalar and its line break; a multi-line
// string becomes a literal block whose lines sit at column indent.
func writeYAMLScalar(b *strings.Builder, v *jsonNode, indent int, _ bool) {
	if v.kind != jsonString {
		b.WriteString(v.text)
		b.WriteByte('\n')
		return
	}
	s := v.text
	if strings.Contains(s, "\n") {
		if a := analyzeYAMLScalar(s); a.blockAllowed {
			writeYAMLLiteral(b, s, indent)
			return
		}
		b.WriteString(yamlDoubleQuoted(s))
		b.WriteByte('\n')
		return
	}
	b.WriteString(yamlScalarText(s, false))
	b.WriteByte('\n')
}

// writeYAMLLiteral writes s as a literal block scalar: "|" with the
// chomping indicator its trailing line breaks need, and an indentation
// indicator when it starts with a space or a line break.
func writeYAMLLiteral(b *strings.Builder, s string, indent int) {
	b.WriteByte('|')
	if s[0] == ' ' || s[0] == '\n' {
		b.WriteByte('4')
	}
	switch {
	case !strings.HasSuffix(s, "\n"):
		b.WriteByte('-')
	case len(s) == 1 || strings.HasSuffix(s, "\n\n"):
		b.WriteByte('+')
	}
	b.WriteByte('\n')
	body := strings.TrimSuffix(s, "\n")
	for _, line := range strings.Split(body, "\n") {
		if line != "" {
			b.WriteString(strings.Repeat(" ", indent))
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
}

// yamlScalarText is a one-line string as YAML writes it: plain when
// YAML reads it back as the same string, else single-quoted, else
// double-quoted.
func yamlScalarText(s string, key bool) string {
	a := analyzeYAMLScalar(s)
	switch {
	case key && a.multiline, yamlResolvesAsNonString(s):
		return yamlDoubleQuoted(s)
	case a.blockPlainAllowed:
		return s
	case a.singleQuotedAllowed:
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return yamlDoubleQuoted(s)
}

// yamlScalarAnalysis is what a string's characters allow.
type yamlScalarAnalysis struct {
	multiline, blockPlainAllowed, singleQuotedAllowed, blockAllowed bool
}

// analyzeYAMLScalar finds which styles can write s: indicators at its
// start or after a space forbid plain style, surrounding spaces forbid
// plain and block styles, tabs and unprintable characters leave only
// double quotes.
func analyzeYAMLScalar(s string) yamlScalarAnalysis {
	a := yamlScalarAnalysis{blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true}
	if s == "" {
		a.blockAllowed = false
		return a
	}
	indicators := strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...")
	var lineBreaks, special, tabs, spaceBreak, breakSpace, prevSpace, prevBreak bool
	precededByBlank := true
	for i, r := range s {
		w := utf8.RuneLen(r)
		followedByBlank := i+w >= len(s) || s[i+w] == ' ' || s[i+w] == '\t' || isYAMLBreak(s[i+w:])
		if yamlIndicatorAt(s, i, r, precededByBlank, followedByBlank) {
			indicators = true
		}
		switch {
		case r == '\t':
			tabs = true
		case !isYAMLPrintable(r):
			special = true
		}
		switch {
		case r == ' ':
			breakSpace = breakSpace || prevBreak
			prevSpace, prevBreak = true, false
		case isYAMLBreak(s[i:]):
			lineBreaks = true
			spaceBreak = spaceBreak || prevSpace
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		precededByBlank = r == ' ' || r == '\t' || isYAMLBreak(s[i:])
	}
	a.multiline = lineBreaks
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if first == ' ' || last == ' ' || isYAMLBreak(s) || isYAMLBreak(string(last)) || lineBreaks || indicators {
		a.blockPlainAllowed = false
	}
	if last == ' ' || spaceBreak || special {
		a.blockAllowed = false
	}
	if breakSpace || spaceBreak || tabs || special {
		a.blockPlainAllowed, a.singleQuotedAllowed = false, false
	}
	return a
}

// yamlIndicatorAt reports a character that would make a plain block
// scalar read as something else: most indicators at the start, ": " and
// " #" anywhere.
func yamlIndicatorAt(s string, i int, r rune, precededByBlank, followedByBlank bool) bool {
	if i == 0 {
		switch r {
		case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
			return true
		case '?', ':', '-':
			return followedByBlank
		}
		return false
	}
	switch r {
	case ':':
		return followedByBlank
	case '#':
		return precededByBlank
	}
	return false
}

func isYAMLBreak(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// isYAMLPrintable is YAML's printable set (tab aside, handled apart).
func isYAMLPrintable(r rune) bool {
	switch {
	case r == 0x0A, r >= 0x20 && r <= 0x7E, r == 0x85:
		return true
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF:
		return true
	}
	return r >= 0x10000 && r <= 0x10FFFF
}

var yamlFloatPattern = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// yamlResolvesAsNonString reports a string that YAML, read plain, takes
// for null, a boolean, a number or a timestamp: it must be quoted.
func yamlResolvesAsNonString(s string) bool {
	switch s {
	case "", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
		".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
		return true
	}
	c := s[0]
	if c != '+' && c != '-' && c != '.' && (c < '0' || c > '9') {
		return false
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(s, 0, 64); err == nil {
		return true
	}
	if yamlFloatPattern.MatchString(s) {
		return true
	}
	if rest, ok := strings.CutPrefix(s, "0b"); ok && isBinaryDigits(rest) {
		return true
	}
	if rest, ok := strings.CutPrefix(s, "-0b"); ok && isBinaryDigits(rest) {
		return true
	}
	return isYAMLTimestamp(s)
}

func isBinaryDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c != '0' && c != '1' {
			return false
		}
	}
	return true
}

// isYAMLTimestamp reports a date or date-time YAML reads as a timestamp.
func isYAMLTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, layout := range []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// yamlDoubleQuoted writes s double-quoted with YAML's escapes.
func yamlDoubleQuoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		case 7:
			b.WriteString(`\a`)
		case 8:
			b.WriteString(`\b`)
		case 9:
			b.WriteString(`\t`)
		case 0xA:
			b.WriteString(`\n`)
		case 0xB:
			b.WriteString(`\v`)
		case 0xC:
			b.WriteString(`\f`)
		case 0xD:
			b.WriteString(`\r`)
		case 0x1B:
			b.WriteString(`\e`)
		case 0x85:
			b.WriteString(`\N`)
		case 0xA0:
			b.WriteString(`\_`)
		case 0x2028:
			b.WriteString(`\L`)
		case 0x2029:
			b.WriteString(`\P`)
		default:
			writeYAMLRune(&b, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeYAMLRune writes a printable rune as is, another as a hex escape.
func writeYAMLRune(b *strings.Builder, r rune) {
	switch {
	case isYAMLPrintable(r):
		b.WriteRune(r)
	case r <= 0xFF:
		fmt.Fprintf(b, `\x%02X`, r)
	case r <= 0xFFFF:
		fmt.Fprintf(b, `\u%04X`, r)
	default:
		fmt.Fprintf(b, `\U%08X`, r)
	}
}
