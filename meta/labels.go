package meta

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// LabelSelector is a parsed label selector in the syntax kube-apiserver
// accepts in the labelSelector query parameter, for example
// "app=web,tier in (frontend,backend),!canary,replicas>2".
//
// Requirements are ANDed. The zero LabelSelector, like the one parsed from
// an empty string, matches every label set. A LabelSelector is immutable
// and safe for concurrent use; parse it once and call [LabelSelector.Matches]
// as often as needed.
type LabelSelector struct {
	reqs []labelRequirement
}

// labelOperator is the relation a requirement states between a label and
// its values.
type labelOperator uint8

const (
	labelEquals       labelOperator = iota + 1 // key=value
	labelDoubleEquals                          // key==value
	labelNotEquals                             // key!=value
	labelIn                                    // key in (a,b)
	labelNotIn                                 // key notin (a,b)
	labelExists                                // key
	labelDoesNotExist                          // !key
	labelGreaterThan                           // key>5
	labelLessThan                              // key<5
)

// labelRequirement is one comma-separated term of a label selector.
type labelRequirement struct {
	key    string
	op     labelOperator
	values []string // sorted and without duplicates; nil for Exists and DoesNotExist
	bound  int64    // the integer of a GreaterThan or LessThan requirement
}

// ParseLabelSelector parses s with the grammar of Kubernetes'
// k8s.io/apimachinery/pkg/labels.Parse:
//
//	selector    ::= "" | requirement { "," requirement }
//	requirement ::= [ "!" ] KEY
//	              | KEY ( "=" | "==" | "!=" | ">" | "<" ) VALUE
//	              | KEY ( "in" | "notin" ) "(" VALUE { "," VALUE } ")"
//
// Whitespace may surround every token. KEY is a label key: an optional DNS
// subdomain prefix (at most 253 characters) and "/", then a name of at most
// 63 alphanumerics, '-', '_' and '.' that starts and ends with an
// alphanumeric. VALUE is empty or a name of the same form; ">" and "<"
// take an integer. Errors carry the wording of k8s.io/apimachinery v0.37,
// such as "unable to parse requirement: found 'b', expected: in, notin, =,
// ==, !=, gt, lt" for "a b". One difference: Kubernetes' lexer stops at a
// NUL byte, while here a NUL is an ordinary, and so invalid, character.
func ParseLabelSelector(s string) (LabelSelector, error) {
	p := labelParser{lex: labelLexer{s: s}}
	var reqs []labelRequirement
	for {
		switch t := p.peekValue(); t.kind {
		case labelTokEnd:
			return newLabelSelector(reqs), nil
		case labelTokIdent, labelTokBang:
		default:
			return LabelSelector{}, fmt.Errorf("found '%s', expected: !, identifier, or 'end of string'", t.lit)
		}
		r, err := p.parseRequirement()
		if err != nil {
			return LabelSelector{}, fmt.Errorf("unable to parse requirement: %w", err)
		}
		reqs = append(reqs, r)
		switch t := p.nextValue(); t.kind {
		case labelTokEnd:
			return newLabelSelector(reqs), nil
		case labelTokComma:
			if n := p.peekValue(); n.kind != labelTokIdent && n.kind != labelTokBang {
				return LabelSelector{}, fmt.Errorf("found '%s', expected: identifier after ','", n.lit)
			}
		default:
			return LabelSelector{}, fmt.Errorf("found '%s', expected: ',' or 'end of string'", t.lit)
		}
	}
}

// newLabelSelector orders the requirements by key, as Kubernetes does, so
// that String is deterministic.
func newLabelSelector(reqs []labelRequirement) LabelSelector {
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
	return LabelSelector{reqs: reqs}
}

// Matches reports whether labels satisfy every requirement of s. A nil map
// is an empty label set. Matches does not allocate.
func (s LabelSelector) Matches(labels map[string]string) bool {
	for i := range s.reqs {
		if !s.reqs[i].matches(labels) {
			return false
		}
	}
	return true
}

// Empty reports whether s has no requirements and so matches everything.
func (s LabelSelector) Empty() bool { return len(s.reqs) == 0 }

// String renders s in canonical form: requirements ordered by key, values
// of a set ordered and deduplicated, no optional whitespace. It is the form
// kube-apiserver prints, and it parses back to an equivalent selector.
func (s LabelSelector) String() string {
	var b strings.Builder
	for i := range s.reqs {
		if i > 0 {
			b.WriteByte(',')
		}
		s.reqs[i].writeTo(&b)
	}
	return b.String()
}

func (r *labelRequirement) matches(labels map[string]string) bool {
	v, ok := labels[r.key]
	switch r.op {
	case labelEquals, labelDoubleEquals, labelIn:
		return ok && r.hasValue(v)
	case labelNotEquals, labelNotIn:
		return !ok || !r.hasValue(v)
	case labelExists:
		return ok
	case labelDoesNotExist:
		return !ok
	case labelGreaterThan, labelLessThan:
		if !ok {
			return false
		}
		n, isInt := parseLabelInt(v)
		if !isInt {
			return false
		}
		if r.op == labelGreaterThan {
			return n > r.bound
		}
		return n < r.bound
	}
	return false
}

func (r *labelRequirement) hasValue(v string) bool {
	if len(r.values) > 8 {
		_, found := slices.BinarySearch(r.values, v)
		return found
	}
	for _, x := range r.values {
		if x == v {
			return true
		}
	}
	return false
}

func (r *labelRequirement) writeTo(b *strings.Builder) {
	if r.op == labelDoesNotExist {
		b.WriteByte('!')
	}
	b.WriteString(r.key)
	switch r.op {
	case labelExists, labelDoesNotExist:
		return
	case labelEquals:
		b.WriteByte('=')
	case labelDoubleEquals:
		b.WriteString("==")
	case labelNotEquals:
		b.WriteString("!=")
	case labelIn:
		b.WriteString(" in (")
	case labelNotIn:
		b.WriteString(" notin (")
	case labelGreaterThan:
		b.WriteByte('>')
	case labelLessThan:
		b.WriteByte('<')
	}
	for i, v := range r.values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(v)
	}
	if r.op == labelIn || r.op == labelNotIn {
		b.WriteByte(')')
	}
}

// parseLabelInt parses a base-10 int64 exactly as strconv.ParseInt(s, 10,
// 64) accepts it (optional sign, digits, in range), without allocating on
// failure.
func parseLabelInt(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	const limit = uint64(1) << 63
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || n > limit/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > limit {
			return 0, false
		}
	}
	if neg {
		return -int64(n), true // n == limit wraps to math.MinInt64, as intended
	}
	if n == limit {
		return 0, false
	}
	return int64(n), true
}

// Lexing. The tokens and their spelling follow Kubernetes' label selector
// lexer: whitespace separates tokens, the symbols are = == != ! ( ) , > <,
// and every other run of bytes is an identifier, "in" and "notin" being
// keywords only where an operator is expected.

type labelTokenKind uint8

const (
	labelTokEnd labelTokenKind = iota
	labelTokIdent
	labelTokIn
	labelTokNotIn
	labelTokOpenPar
	labelTokClosePar
	labelTokComma
	labelTokBang
	labelTokEquals
	labelTokDoubleEquals
	labelTokNotEquals
	labelTokGreater
	labelTokLess
)

type labelToken struct {
	kind labelTokenKind
	lit  string // the token as written; "" at the end of input
}

type labelLexer struct {
	s   string
	pos int
}

func isLabelSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

var labelSymbolKinds = [...]labelTokenKind{
	'=': labelTokEquals, '!': labelTokBang, '(': labelTokOpenPar, ')': labelTokClosePar,
	',': labelTokComma, '>': labelTokGreater, '<': labelTokLess,
}

func isLabelSymbol(c byte) bool { return int(c) < len(labelSymbolKinds) && labelSymbolKinds[c] != 0 }

func (l *labelLexer) lex() labelToken {
	for l.pos < len(l.s) && isLabelSpace(l.s[l.pos]) {
		l.pos++
	}
	if l.pos >= len(l.s) {
		return labelToken{kind: labelTokEnd}
	}
	start := l.pos
	if c := l.s[start]; isLabelSymbol(c) {
		if (c == '=' || c == '!') && start+1 < len(l.s) && l.s[start+1] == '=' {
			l.pos += 2
			if c == '=' {
				return labelToken{kind: labelTokDoubleEquals, lit: l.s[start:l.pos]}
			}
			return labelToken{kind: labelTokNotEquals, lit: l.s[start:l.pos]}
		}
		l.pos++
		return labelToken{kind: labelSymbolKinds[c], lit: l.s[start:l.pos]}
	}
	for l.pos < len(l.s) && !isLabelSpace(l.s[l.pos]) && !isLabelSymbol(l.s[l.pos]) {
		l.pos++
	}
	lit := l.s[start:l.pos]
	switch lit {
	case "in":
		return labelToken{kind: labelTokIn, lit: lit}
	case "notin":
		return labelToken{kind: labelTokNotIn, lit: lit}
	}
	return labelToken{kind: labelTokIdent, lit: lit}
}

// labelParser is a recursive-descent parser with one token of lookahead.
type labelParser struct {
	lex    labelLexer
	ahead  labelToken
	peeked bool
}

func (p *labelParser) peek() labelToken {
	if !p.peeked {
		p.ahead = p.lex.lex()
		p.peeked = true
	}
	return p.ahead
}

func (p *labelParser) next() labelToken {
	t := p.peek()
	p.peeked = false
	return t
}

// asLabelValue reads the keywords as identifiers, outside operator position.
func asLabelValue(t labelToken) labelToken {
	if t.kind == labelTokIn || t.kind == labelTokNotIn {
		t.kind = labelTokIdent
	}
	return t
}

func (p *labelParser) peekValue() labelToken { return asLabelValue(p.peek()) }
func (p *labelParser) nextValue() labelToken { return asLabelValue(p.next()) }

func (p *labelParser) parseRequirement() (labelRequirement, error) {
	var r labelRequirement
	t := p.nextValue()
	notExists := t.kind == labelTokBang
	if notExists {
		t = p.nextValue()
	}
	if t.kind != labelTokIdent {
		return r, fmt.Errorf("found '%s', expected: identifier", t.lit)
	}
	if msgs := labelKeyErrors(t.lit); len(msgs) > 0 {
		// kube-apiserver validates the key against a nil field path,
		// which prints as "<nil>".
		return r, invalidLabelValue("<nil>", t.lit, strings.Join(msgs, "; "))
	}
	r.key = t.lit
	if notExists {
		r.op = labelDoesNotExist
		return r, nil
	}
	if n := p.peekValue(); n.kind == labelTokEnd || n.kind == labelTokComma {
		r.op = labelExists
		return r, nil
	}
	op, err := p.parseOperator()
	if err != nil {
		return r, err
	}
	r.op = op
	if op == labelIn || op == labelNotIn {
		r.values, err = p.parseValueSet()
	} else {
		r.values, err = p.parseExactValue()
	}
	if err != nil {
		return r, err
	}
	return r, r.validateValues()
}

// labelBinaryOperators maps the tokens that may follow a key to their
// operators.
var labelBinaryOperators = [...]labelOperator{
	labelTokIn: labelIn, labelTokNotIn: labelNotIn, labelTokEquals: labelEquals,
	labelTokDoubleEquals: labelDoubleEquals, labelTokNotEquals: labelNotEquals,
	labelTokGreater: labelGreaterThan, labelTokLess: labelLessThan,
}

func (p *labelParser) parseOperator() (labelOperator, error) {
	t := p.next()
	if op := labelBinaryOperators[t.kind]; op != 0 {
		return op, nil
	}
	return 0, fmt.Errorf("found '%s', expected: in, notin, =, ==, !=, gt, lt", t.lit)
}

// parseExactValue reads the single, possibly empty, value after = == != > <.
func (p *labelParser) parseExactValue() ([]string, error) {
	if n := p.peekValue(); n.kind == labelTokEnd || n.kind == labelTokComma {
		return []string{""}, nil
	}
	t := p.nextValue()
	if t.kind != labelTokIdent {
		return nil, fmt.Errorf("found '%s', expected: identifier", t.lit)
	}
	return []string{t.lit}, nil
}

// parseValueSet reads "(" values ")" after in or notin. Like Kubernetes, it
// reads an empty list, and empty items such as in "(a,)" or "(,a)", as the
// empty value.
func (p *labelParser) parseValueSet() ([]string, error) {
	if t := p.nextValue(); t.kind != labelTokOpenPar {
		return nil, fmt.Errorf("found '%s' expected: '('", t.lit)
	}
	switch t := p.peekValue(); t.kind {
	case labelTokClosePar:
		p.next()
		return []string{""}, nil
	case labelTokIdent, labelTokComma:
		return p.parseValueList()
	default:
		return nil, fmt.Errorf("found '%s', expected: ',', ')' or identifier", t.lit)
	}
}

// parseValueList reads the items of a value set and its closing ")". As
// in Kubernetes, a leading, doubled or trailing comma adds the empty value.
func (p *labelParser) parseValueList() ([]string, error) {
	var vals []string
	for {
		switch t := p.nextValue(); t.kind {
		case labelTokIdent:
			vals = append(vals, t.lit)
			switch n := p.peekValue(); n.kind {
			case labelTokComma:
			case labelTokClosePar:
				p.next()
				return sortedUniqueLabelValues(vals), nil
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or ')'", n.lit)
			}
		case labelTokComma:
			if len(vals) == 0 {
				vals = append(vals, "")
			}
			switch n := p.peekValue(); n.kind {
			case labelTokClosePar:
				p.next()
				return sortedUniqueLabelValues(append(vals, "")), nil
			case labelTokComma:
				vals = append(vals, "")
			}
		default:
			return nil, fmt.Errorf("found '%s', expected: ',', or identifier", t.lit)
		}
	}
}

func sortedUniqueLabelValues(vals []string) []string {
	slices.Sort(vals)
	return slices.Compact(vals)
}

// validateValues checks the values of a parsed requirement, as Kubernetes'
// NewRequirement does, and records the bound of > and <.
func (r *labelRequirement) validateValues() error {
	var errs []string
	if r.op == labelGreaterThan || r.op == labelLessThan {
		n, ok := parseLabelInt(r.values[0])
		if !ok {
			errs = append(errs, invalidLabelValue("values[0]", r.values[0],
				"for 'Gt', 'Lt' operators, the value must be an integer").Error())
		}
		r.bound = n
	}
	for i, v := range r.values {
		if msgs := labelValueErrors(v); len(msgs) > 0 {
			path := "values[" + strconv.Itoa(i) + "][" + r.key + "]"
			errs = append(errs, invalidLabelValue(path, v, strings.Join(msgs, "; ")).Error())
		}
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return selectorError(errs[0])
	}
	return selectorError("[" + strings.Join(errs, ", ") + "]")
}

// selectorError is a parse error whose text is final.
type selectorError string

func (e selectorError) Error() string { return string(e) }

// invalidLabelValue words an error as Kubernetes' field.Invalid does.
func invalidLabelValue(path, value, detail string) selectorError {
	return selectorError(fmt.Sprintf("%s: Invalid value: %q: %s", path, value, detail))
}

// Validation of label keys and values, worded as Kubernetes'
// k8s.io/apimachinery/pkg/util/validation does.

const (
	labelNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', " +
		"and must start and end with an alphanumeric character"
	labelValueFmt    = "(" + labelNameFmt + ")?"
	labelValueErrMsg = "a valid label must be an empty string or consist of alphanumeric characters, " +
		"'-', '_' or '.', and must start and end with an alphanumeric character"
	labelDNSSubdomainFmt    = `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
	labelDNSSubdomainErrMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric " +
		"characters, '-' or '.', and must start and end with an alphanumeric character"
	labelNameMaxLen         = 63
	labelValueMaxLen        = 63
	labelDNSSubdomainMaxLen = 253
)

// labelKeyErrors returns why k is not a valid label key, or nothing.
func labelKeyErrors(k string) []string {
	var errs []string
	prefix, name, hasSlash := strings.Cut(k, "/")
	switch {
	case !hasSlash:
		name = k
	case strings.IndexByte(name, '/') >= 0:
		return []string{"a valid label key " +
			labelRegexError(labelNameErrMsg, labelNameFmt, "MyName", "my.name", "123-abc") +
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
	case prefix == "":
		errs = append(errs, "prefix part must be non-empty")
	default:
		if len(prefix) > labelDNSSubdomainMaxLen {
			errs = append(errs, "prefix part "+labelMaxLenError(labelDNSSubdomainMaxLen))
		}
		if !isLabelDNSSubdomainChars(prefix) {
			errs = append(errs, "prefix part "+labelRegexError(labelDNSSubdomainErrMsg, labelDNSSubdomainFmt, "example.com"))
		}
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > labelNameMaxLen {
		errs = append(errs, "name part "+labelMaxLenError(labelNameMaxLen))
	}
	if !isLabelNameChars(name) {
		errs = append(errs, "name part "+labelRegexError(labelNameErrMsg, labelNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// labelValueErrors returns why v is not a valid label value, or nothing.
func labelValueErrors(v string) []string {
	var errs []string
	if len(v) > labelValueMaxLen {
		errs = append(errs, labelMaxLenError(labelValueMaxLen))
	}
	if v != "" && !isLabelNameChars(v) {
		errs = append(errs, labelRegexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

func labelMaxLenError(n int) string {
	return "must be no more than " + strconv.Itoa(n) + " bytes"
}

func labelRegexError(msg, format string, examples ...string) string {
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString(" (e.g. ")
	for i, e := range examples {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString("'" + e + "', ")
	}
	b.WriteString("regex used for validation is '" + format + "')")
	return b.String()
}

func isLabelAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isLabelNameChars reports whether s matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
func isLabelNameChars(s string) bool {
	if s == "" || !isLabelAlnum(s[0]) || !isLabelAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLabelAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isLabelDNSSubdomainChars reports whether s is dot-separated lowercase RFC 1123
// labels, ignoring length limits.
func isLabelDNSSubdomainChars(s string) bool {
	for _, label := range strings.Split(s, ".") {
		if label == "" || !isLabelLowerAlnum(label[0]) || !isLabelLowerAlnum(label[len(label)-1]) {
			return false
		}
		for i := 1; i < len(label)-1; i++ {
			if c := label[i]; !isLabelLowerAlnum(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func isLabelLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// LabelValues is a label key and the values a label selector allows it.
type LabelValues struct {
	Key    string
	Values []string // sorted, without duplicates
}

// Required returns the requirements that only a label of a given key with
// one of given values passes (key=value, key==value, key in (…)): every
// label set the selector matches has, for each of them, the key set to one
// of the values. An index of labels can serve the selector from the
// objects it lists under those values; the other requirements still have
// to be checked with [LabelSelector.Matches]. The slices are the
// selector's own and must not be modified.
func (s LabelSelector) Required() []LabelValues {
	var out []LabelValues
	for _, r := range s.reqs {
		switch r.op {
		case labelEquals, labelDoubleEquals, labelIn:
			out = append(out, LabelValues{Key: r.key, Values: r.values})
		}
	}
	return out
}
