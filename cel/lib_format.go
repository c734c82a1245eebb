package cel

import (
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// formatType is the type of named formats.
var formatType = cel.ObjectType("kubernetes.NamedFormat")

// namedFormat validates strings of one format, returning the problems.
type namedFormat struct {
	name     string
	validate func(string) []string
}

const (
	labelRE     = `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
	label1035RE = `[a-z]([-a-z0-9]*[a-z0-9])?`
	subdomainRE = labelRE + `(\.` + labelRE + `)*`
	qnameRE     = `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
)

var (
	labelPattern     = regexp.MustCompile(`^` + labelRE + `$`)
	label1035Pattern = regexp.MustCompile(`^` + label1035RE + `$`)
	subdomainPattern = regexp.MustCompile(`^` + subdomainRE + `$`)
	qnamePattern     = regexp.MustCompile(`^` + qnameRE + `$`)
	uuidPattern      = regexp.MustCompile(`^(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// dnsCheck builds the check of an RFC 1123 or 1035 name, as Kubernetes
// words its problems.
func dnsCheck(re *regexp.Regexp, max int, what, source, example string) func(string) []string {
	return func(s string) []string {
		var errs []string
		if len(s) > max {
			errs = append(errs, fmt.Sprintf("must be no more than %d characters", max))
		}
		if !re.MatchString(s) {
			errs = append(errs, fmt.Sprintf("%s %s (e.g. %s, regex used for validation is '%s')", what, source, example,
				strings.TrimSuffix(strings.TrimPrefix(re.String(), "^"), "$")))
		}
		return errs
	}
}

func prefix(check func(string) []string) func(string) []string {
	return func(s string) []string { return check(strings.TrimSuffix(s, "-")) }
}

func qualifiedName(s string) []string {
	name, pfx := s, ""
	if i := strings.LastIndex(s, "/"); i >= 0 {
		pfx, name = s[:i], s[i+1:]
		if pfx == "" {
			return []string{"prefix part must be non-empty"}
		}
	}
	var errs []string
	if pfx != "" {
		for _, e := range formats["dns1123Subdomain"].validate(pfx) {
			errs = append(errs, "prefix part "+e)
		}
	}
	switch {
	case name == "":
		errs = append(errs, "name part must be non-empty")
	case len(name) > 63:
		errs = append(errs, "name part must be no more than 63 characters")
	}
	if name != "" && !qnamePattern.MatchString(name) {
		errs = append(errs, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '"+qnameRE+"')")
	}
	return errs
}

func labelValue(s string) []string {
	var errs []string
	if len(s) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if s != "" && !qnamePattern.MatchString(s) {
		errs = append(errs, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
	}
	return errs
}

func errIf(err error, msg string) []string {
	if err != nil {
		return []string{msg}
	}
	return nil
}

var formats = map[string]namedFormat{}

func init() {
	label := dnsCheck(labelPattern, 63, "a lowercase RFC 1123 label",
		"must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", "'my-name',  or '123-abc'")
	subdomain := dnsCheck(subdomainPattern, 253, "a lowercase RFC 1123 subdomain",
		"must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", "'example.com'")
	label1035 := dnsCheck(label1035Pattern, 63, "a DNS-1035 label",
		"must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", "'my-name',  or 'abc-123'")
	for name, f := range map[string]func(string) []string{
		"dns1123Label": label, "dns1123Subdomain": subdomain, "dns1035Label": label1035,
		"dns1123LabelPrefix": prefix(label), "dns1123SubdomainPrefix": prefix(subdomain),
		"dns1035LabelPrefix": prefix(label1035), "qualifiedName": qualifiedName, "labelValue": labelValue,
		"uri": func(s string) []string { _, err := parseURL(s); return errIf(err, "invalid URI") },
		"uuid": func(s string) []string {
			return errIf(boolErr(uuidPattern.MatchString(s)), "does not match the UUID format")
		},
		"byte": func(s string) []string {
			_, err := base64.StdEncoding.DecodeString(s)
			return errIf(err, "invalid base64")
		},
		"date": func(s string) []string {
			_, err := time.Parse(time.DateOnly, s)
			return errIf(err, "invalid date")
		},
		"datetime": func(s string) []string {
			_, err := time.Parse(time.RFC3339Nano, s)
			return errIf(err, "invalid datetime")
		},
	} {
		formats[name] = namedFormat{name: name, validate: f}
	}
}

func boolErr(ok bool) error {
	if ok {
		return nil
	}
	return fmt.Errorf("no match")
}

func formatVal(f namedFormat) ref.Val {
	return opaque[namedFormat]{t: formatType, v: f, equal: func(a, b namedFormat) bool { return a.name == b.name }}
}

// formatLib is Kubernetes' format library: format.named(name) and
// format.<name>() return a named format; <format>.validate(s) returns
// optional.none() for a valid string, else the list of its problems.
func formatLib() cel.EnvOption {
	l := &library{name: "format", costs: map[string]overloadCost{
		"format-validate": validateCost,
	}}
	names := make([]string, 0, len(formats))
	for name := range formats {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := formats[name]
		l.funcs = append(l.funcs, cel.Function("format."+name,
			cel.Overload("format-"+name, nil, formatType,
				cel.FunctionBinding(func(...ref.Val) ref.Val { return formatVal(f) }))))
	}
	l.funcs = append(l.funcs,
		cel.Function("format.named", cel.Overload("format-named", []*cel.Type{cel.StringType}, cel.OptionalType(formatType),
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, ok := v.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				if f, ok := formats[string(s)]; ok {
					return types.OptionalOf(formatVal(f))
				}
				return types.OptionalNone
			}))),
		cel.Function("validate", cel.MemberOverload("format-validate", []*cel.Type{formatType, cel.StringType},
			cel.OptionalType(cel.ListType(cel.StringType)),
			cel.BinaryBinding(func(fv, sv ref.Val) ref.Val {
				f, err := unwrap[namedFormat](fv)
				if err != nil {
					return err
				}
				s, ok := sv.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(sv)
				}
				if errs := f.validate(string(s)); len(errs) > 0 {
					return types.OptionalOf(types.NewStringList(types.DefaultTypeAdapter, errs))
				}
				return types.OptionalNone
			}))),
	)
	return l.option()
}

// maxFormatRegex is the size of the longest pattern a format checks.
const maxFormatRegex = 128

// validateCost prices <format>.validate(s) as a scan of s by a pattern
// of the largest size.
var validateCost = overloadCost{
	est: func(est checker.CostEstimator, _ *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
		if len(args) != 1 {
			return nil
		}
		c := sizeOf(est, args[0]).MultiplyByCostFactor(maxFormatRegex * stringFactor).Add(checker.FixedCostEstimate(1))
		return &checker.CallEstimate{CostEstimate: c}
	},
	track: func(args []ref.Val, _ ref.Val) *uint64 {
		c := 1 + uint64(math.Ceil(float64(actualSize(args[1]))*maxFormatRegex*stringFactor))
		return &c
	},
}
