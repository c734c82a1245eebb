package cel

import "strings"

// celReserved are the words CEL reserves; properties so named are
// reached as __word__.
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true,
	"const": true, "continue": true, "else": true, "for": true, "function": true, "if": true,
	"import": true, "let": true, "loop": true, "package": true, "namespace": true,
	"return": true, "var": true, "void": true, "while": true,
}

// escape returns the CEL field name of a property, as kube-apiserver
// escapes them, or false when the name cannot be reached from CEL.
func escape(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	if celReserved[name] {
		return "__" + name + "__", true
	}
	c := name[0]
	if !(c == '_' || c == '.' || c == '-' || c == '/' || isLetter(c)) {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' && i+1 < len(name) && name[i+1] == '_':
			b.WriteString("__underscores__")
			i++
		case c == '.':
			b.WriteString("__dot__")
		case c == '-':
			b.WriteString("__dash__")
		case c == '/':
			b.WriteString("__slash__")
		case c == '_' || isLetter(c) || c >= '0' && c <= '9':
			b.WriteByte(c)
		default:
			return "", false
		}
	}
	return b.String(), true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
