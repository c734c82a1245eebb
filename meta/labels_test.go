package meta

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Label sets the valid-selector cases are matched against.
var (
	lsNone     = map[string]string(nil)
	lsWeb      = map[string]string{"app": "web", "tier": "frontend", "replicas": "3"}
	lsDB       = map[string]string{"app": "db", "tier": "backend", "replicas": "10"}
	lsEmptyApp = map[string]string{"app": "", "tier": "frontend"}
	lsPrefixed = map[string]string{"example.com/team": "blue", "app": "web"}
	lsBadCount = map[string]string{"app": "web", "replicas": "three"}
)

type labelMatchCase struct {
	labels map[string]string
	want   bool
}

func TestParseLabelSelectorValid(t *testing.T) {
	tests := []struct {
		in      string
		str     string // canonical String()
		matches []labelMatchCase
	}{
		{"", "", []labelMatchCase{{lsNone, true}, {lsWeb, true}, {lsDB, true}}},
		{" \t\r\n ", "", []labelMatchCase{{lsNone, true}, {lsWeb, true}}},
		{"app=web", "app=web", []labelMatchCase{{lsWeb, true}, {lsDB, false}, {lsNone, false}, {lsEmptyApp, false}}},
		{"app==web", "app==web", []labelMatchCase{{lsWeb, true}, {lsDB, false}, {lsNone, false}}},
		{"app!=web", "app!=web", []labelMatchCase{{lsWeb, false}, {lsDB, true}, {lsNone, true}, {lsEmptyApp, true}}},
		{"  app  =  web  ", "app=web", []labelMatchCase{{lsWeb, true}, {lsDB, false}}},
		{"app=", "app=", []labelMatchCase{{lsEmptyApp, true}, {lsWeb, false}, {lsNone, false}}},
		{"app=,tier=frontend", "app=,tier=frontend", []labelMatchCase{{lsEmptyApp, true}, {lsWeb, false}}},
		{"app", "app", []labelMatchCase{{lsWeb, true}, {lsEmptyApp, true}, {lsNone, false}}},
		{"!app", "!app", []labelMatchCase{{lsWeb, false}, {lsEmptyApp, false}, {lsNone, true}}},
		{"! app", "!app", []labelMatchCase{{lsWeb, false}, {lsNone, true}}},
		{"app in (web,db)", "app in (db,web)", []labelMatchCase{{lsWeb, true}, {lsDB, true}, {lsEmptyApp, false}, {lsNone, false}}},
		{"app in(web , db,web)", "app in (db,web)", []labelMatchCase{{lsWeb, true}, {lsDB, true}, {lsNone, false}}},
		{"app notin (web)", "app notin (web)", []labelMatchCase{{lsWeb, false}, {lsDB, true}, {lsNone, true}, {lsEmptyApp, true}}},
		{"app in ()", "app in ()", []labelMatchCase{{lsEmptyApp, true}, {lsWeb, false}, {lsNone, false}}},
		{"app in (,)", "app in ()", []labelMatchCase{{lsEmptyApp, true}, {lsWeb, false}}},
		{"app in (,web)", "app in (,web)", []labelMatchCase{{lsEmptyApp, true}, {lsWeb, true}, {lsDB, false}}},
		{"app in (web,)", "app in (,web)", []labelMatchCase{{lsEmptyApp, true}, {lsWeb, true}, {lsDB, false}}},
		{"app in (web,,db)", "app in (,db,web)", []labelMatchCase{{lsEmptyApp, true}, {lsWeb, true}, {lsDB, true}}},
		{"app in (web,,)", "app in (,web)", []labelMatchCase{{lsEmptyApp, true}, {lsWeb, true}, {lsDB, false}}},
		{"app in (,,,)", "app in ()", []labelMatchCase{{lsEmptyApp, true}, {lsWeb, false}}},
		{"app notin ()", "app notin ()", []labelMatchCase{{lsEmptyApp, false}, {lsWeb, true}, {lsNone, true}}},
		{"replicas>5", "replicas>5", []labelMatchCase{{lsDB, true}, {lsWeb, false}, {lsNone, false}, {lsBadCount, false}}},
		{"replicas<5", "replicas<5", []labelMatchCase{{lsWeb, true}, {lsDB, false}, {lsNone, false}, {lsBadCount, false}}},
		{"replicas > 3", "replicas>3", []labelMatchCase{{lsWeb, false}, {lsDB, true}}},
		{"replicas<03", "replicas<03", []labelMatchCase{{lsWeb, false}, {lsDB, false}}},
		{"tier=frontend,app", "app,tier=frontend", []labelMatchCase{{lsWeb, true}, {lsEmptyApp, true}, {lsDB, false}}},
		{"tier in (frontend),!canary,app!=db,replicas>1", "app!=db,!canary,replicas>1,tier in (frontend)",
			[]labelMatchCase{{lsWeb, true}, {lsDB, false}, {lsEmptyApp, false}, {lsNone, false}}},
		{"app=web,app=db", "app=web,app=db", []labelMatchCase{{lsWeb, false}, {lsDB, false}}},
		{"example.com/team=blue", "example.com/team=blue", []labelMatchCase{{lsPrefixed, true}, {lsWeb, false}}},
		{"!example.com/team", "!example.com/team", []labelMatchCase{{lsPrefixed, false}, {lsWeb, true}}},
		{"in", "in", []labelMatchCase{{map[string]string{"in": "x"}, true}, {lsWeb, false}}},
		{"in in (in,notin)", "in in (in,notin)", []labelMatchCase{{map[string]string{"in": "notin"}, true}, {map[string]string{"in": "x"}, false}}},
		{"notin notin (in)", "notin notin (in)", []labelMatchCase{{map[string]string{"notin": "in"}, false}, {lsWeb, true}}},
		{"x=in", "x=in", []labelMatchCase{{map[string]string{"x": "in"}, true}, {lsWeb, false}}},
		{"A_b-c.d=V_1-x.Y", "A_b-c.d=V_1-x.Y", []labelMatchCase{{map[string]string{"A_b-c.d": "V_1-x.Y"}, true}, {lsWeb, false}}},
		{"a.b-c/d=e", "a.b-c/d=e", []labelMatchCase{{map[string]string{"a.b-c/d": "e"}, true}, {lsWeb, false}}},
		{"k=" + strings.Repeat("v", 63), "k=" + strings.Repeat("v", 63), []labelMatchCase{{lsWeb, false}}},
		{strings.Repeat("a", 253) + "/" + strings.Repeat("n", 63), strings.Repeat("a", 253) + "/" + strings.Repeat("n", 63),
			[]labelMatchCase{{lsWeb, false}}},
	}
	for _, tt := range tests {
		sel, err := ParseLabelSelector(tt.in)
		if err != nil {
			t.Errorf("ParseLabelSelector(%q): %v", tt.in, err)
			continue
		}
		if got := sel.String(); got != tt.str {
			t.Errorf("ParseLabelSelector(%q).String() = %q, want %q", tt.in, got, tt.str)
		}
		if got, want := sel.Empty(), tt.str == ""; got != want {
			t.Errorf("ParseLabelSelector(%q).Empty() = %v, want %v", tt.in, got, want)
		}
		for _, m := range tt.matches {
			if got := sel.Matches(m.labels); got != m.want {
				t.Errorf("ParseLabelSelector(%q).Matches(%v) = %v, want %v", tt.in, m.labels, got, m.want)
			}
		}
		again, err := ParseLabelSelector(sel.String())
		if err != nil {
			t.Errorf("ParseLabelSelector(%q) does not round-trip through %q: %v", tt.in, sel.String(), err)
		} else if diff := cmp.Diff(sel, again, cmp.AllowUnexported(LabelSelector{}, labelRequirement{})); diff != "" {
			t.Errorf("ParseLabelSelector(%q) does not round-trip through %q (-want +got):\n%s", tt.in, sel.String(), diff)
		}
	}
}

func TestParseLabelSelectorInvalid(t *testing.T) {
	nameRegex := "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end " +
		"with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation " +
		"is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	valueRegex := "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', " +
		"and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', " +
		"regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
	const binOps = "in, notin, =, ==, !=, gt, lt"
	tests := []struct {
		in   string
		want string // the whole error text, or a prefix of it when it ends in "…"
	}{
		{",", "found ',', expected: !, identifier, or 'end of string'"},
		{"a,", "found '', expected: identifier after ','"},
		{"a,,b", "found ',', expected: identifier after ','"},
		{"a,=b", "found '=', expected: identifier after ','"},
		{"=a", "found '=', expected: !, identifier, or 'end of string'"},
		{"!=a", "found '!=', expected: !, identifier, or 'end of string'"},
		{"(a)", "found '(', expected: !, identifier, or 'end of string'"},
		{"!", "unable to parse requirement: found '', expected: identifier"},
		{"!!a", "unable to parse requirement: found '!', expected: identifier"},
		{"a b", "unable to parse requirement: found 'b', expected: " + binOps},
		{"a !b", "unable to parse requirement: found '!', expected: " + binOps},
		{"a (b)", "unable to parse requirement: found '(', expected: " + binOps},
		{"a=b c", "found 'c', expected: ',' or 'end of string'"},
		{"a=b=c", "found '=', expected: ',' or 'end of string'"},
		{"a=b in (c)", "found 'in', expected: ',' or 'end of string'"},
		{"!a=b", "found '=', expected: ',' or 'end of string'"},
		{"!a in (b)", "found 'in', expected: ',' or 'end of string'"},
		{"a=(b)", "unable to parse requirement: found '(', expected: identifier"},
		{"a===b", "unable to parse requirement: found '=', expected: identifier"},
		{"a in b", "unable to parse requirement: found 'b' expected: '('"},
		{"a in", "unable to parse requirement: found '' expected: '('"},
		{"a in (b", "unable to parse requirement: found '', expected: ',' or ')'"},
		{"a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"},
		{"a in ((b))", "unable to parse requirement: found '(', expected: ',', ')' or identifier"},
		{"a in (b,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
		{"a in (b,,c d)", "unable to parse requirement: found 'd', expected: ',' or ')'"},
		{"a in (b,,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
		{"a in (b))", "found ')', expected: ',' or 'end of string'"},
		{"a notin", "unable to parse requirement: found '' expected: '('"},
		{"a>", `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`},
		{"a>b", `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`},
		{"a<9223372036854775808", `unable to parse requirement: values[0]: Invalid value: "9223372036854775808": for 'Gt', 'Lt' operators, the value must be an integer`},
		{"a>-1", `unable to parse requirement: values[0][a]: Invalid value: "-1": ` + valueRegex},
		{"a>1_", `unable to parse requirement: [values[0]: Invalid value: "1_": for 'Gt', 'Lt' operators, the value must be an integer, values[0][a]: Invalid value: "1_": ` + valueRegex + "]"},
		{"a>=1", "unable to parse requirement: found '=', expected: identifier"},
		{"a<(1)", "unable to parse requirement: found '(', expected: identifier"},
		{"k_=v", `unable to parse requirement: <nil>: Invalid value: "k_": ` + nameRegex},
		{"-k", `unable to parse requirement: <nil>: Invalid value: "-k": ` + nameRegex},
		{"!k.", `unable to parse requirement: <nil>: Invalid value: "k.": ` + nameRegex},
		{"a/", `unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; ` + nameRegex},
		{"/a", `unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty`},
		{"a/b/c", `unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key must consist of …`},
		{"Example.com/a", `unable to parse requirement: <nil>: Invalid value: "Example.com/a": prefix part a lowercase RFC 1123 subdomain must consist of …`},
		{"a..b/c", `unable to parse requirement: <nil>: Invalid value: "a..b/c": prefix part a lowercase RFC 1123 subdomain …`},
		{"a-.b/c", `unable to parse requirement: <nil>: Invalid value: "a-.b/c": prefix part a lowercase RFC 1123 subdomain …`},
		{strings.Repeat("a", 254) + "/b", `unable to parse requirement: <nil>: Invalid value: "` + strings.Repeat("a", 254) + `/b": prefix part must be no more than 253 bytes`},
		{strings.Repeat("k", 64), `unable to parse requirement: <nil>: Invalid value: "` + strings.Repeat("k", 64) + `": name part must be no more than 63 bytes`},
		{"k=" + strings.Repeat("v", 64), `unable to parse requirement: values[0][k]: Invalid value: "` + strings.Repeat("v", 64) + `": must be no more than 63 bytes`},
		{"k=v_", `unable to parse requirement: values[0][k]: Invalid value: "v_": ` + valueRegex},
		{"k in (a,b.)", `unable to parse requirement: values[1][k]: Invalid value: "b.": ` + valueRegex},
		{"k in (a., b.)", `unable to parse requirement: [values[0][k]: Invalid value: "a.": ` + valueRegex + `, values[1][k]: …`},
		{"k=v\x00", `unable to parse requirement: values[0][k]: Invalid value: "v\x00": …`},
		{"k=é", `unable to parse requirement: values[0][k]: Invalid value: "é": …`},
		{"a;b", `unable to parse requirement: <nil>: Invalid value: "a;b": …`},
	}
	for _, tt := range tests {
		sel, err := ParseLabelSelector(tt.in)
		if err == nil {
			t.Errorf("ParseLabelSelector(%q) = %q, want error %q", tt.in, sel.String(), tt.want)
			continue
		}
		if prefix, ok := strings.CutSuffix(tt.want, "…"); ok {
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("ParseLabelSelector(%q) error:\n got %q\nwant %q", tt.in, err, tt.want)
			}
		} else if err.Error() != tt.want {
			t.Errorf("ParseLabelSelector(%q) error:\n got %q\nwant %q", tt.in, err, tt.want)
		}
		if !sel.Empty() {
			t.Errorf("ParseLabelSelector(%q) returned a non-empty selector with its error", tt.in)
		}
	}
}

func TestLabelSelectorZeroValue(t *testing.T) {
	var sel LabelSelector
	if !sel.Empty() || sel.String() != "" || !sel.Matches(nil) || !sel.Matches(lsWeb) {
		t.Errorf("zero LabelSelector: Empty=%v String=%q", sel.Empty(), sel.String())
	}
}

func TestLabelSelectorLargeSet(t *testing.T) {
	var vals []string
	for i := 0; i < 50; i++ {
		vals = append(vals, "v"+strconv.Itoa(i))
	}
	sel, err := ParseLabelSelector("k in (" + strings.Join(vals, ",") + ")")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vals {
		if !sel.Matches(map[string]string{"k": v}) {
			t.Errorf("k in (...) does not match k=%s", v)
		}
	}
	for _, v := range []string{"", "v", "v50", "v100"} {
		if sel.Matches(map[string]string{"k": v}) {
			t.Errorf("k in (...) matches k=%s", v)
		}
	}
}

func TestLabelSelectorMatchesDoesNotAllocate(t *testing.T) {
	sel, err := ParseLabelSelector("app in (a,b,c,d,e,f,g,h,i,j,web),tier!=backend,!canary,replicas>1,replicas<9,x notin (y)")
	if err != nil {
		t.Fatal(err)
	}
	for _, labels := range []map[string]string{lsWeb, lsDB, lsBadCount, lsNone} {
		if n := testing.AllocsPerRun(100, func() { sel.Matches(labels) }); n != 0 {
			t.Errorf("Matches(%v) allocates %v times", labels, n)
		}
	}
}

func TestParseLabelInt(t *testing.T) {
	for _, s := range []string{
		"", "+", "-", "0", "-0", "+0", "007", "42", "-42", "+42", "1_000", "0x10", " 1", "1 ", "1.5", "１",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999999", "--1", "+-1",
	} {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseLabelInt(s)
		if ok != (err == nil) || (ok && got != want) {
			t.Errorf("parseLabelInt(%q) = %d, %v; strconv says %d, %v", s, got, ok, want, err)
		}
	}
}

func FuzzParseLabelSelector(f *testing.F) {
	for _, s := range []string{
		"", "a", "!a", "a=b", "a==b", "a!=b", "a in (b,c)", "a notin (b)", "a>1", "a<-1", "a in ()",
		"a in (,b)", "x in (foo,,baz),y,z notin ()", "example.com/k=v", "in in (in)", "a=b,c!=d,!e",
		"a in (b,,)", " a = b , c ", "a>9223372036854775807",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseLabelSelector(s)
		if err != nil {
			return
		}
		str := sel.String()
		again, err := ParseLabelSelector(str)
		if err != nil {
			t.Fatalf("%q parses, but its String %q does not: %v", s, str, err)
		}
		if diff := cmp.Diff(sel, again, cmp.AllowUnexported(LabelSelector{}, labelRequirement{})); diff != "" {
			t.Fatalf("%q parses, but its String %q parses otherwise (-%q +%q):\n%s", s, str, s, str, diff)
		}
		if again.String() != str {
			t.Fatalf("String is not stable: %q, then %q", str, again.String())
		}
		sel.Matches(map[string]string{"a": "b", "in": "1"})
	})
}

func TestLabelSelectorRequired(t *testing.T) {
	tests := []struct {
		sel  string
		want []LabelValues
	}{
		{"", nil},
		{"app=web", []LabelValues{{"app", []string{"web"}}}},
		{"app==web,tier in (b, a, b)", []LabelValues{{"app", []string{"web"}}, {"tier", []string{"a", "b"}}}},
		{"app!=web,tier notin (a),x,!y,n>3,m<2", nil},
		{"app=,x", []LabelValues{{"app", []string{""}}}},
	}
	for _, tc := range tests {
		s, err := ParseLabelSelector(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, s.Required()); diff != "" {
			t.Errorf("%q: Required() (-want +got):\n%s", tc.sel, diff)
		}
	}
}

// TestQualifiedNameErrors: the reasons a qualified name is refused are
// kube-apiserver's.
func TestQualifiedNameErrors(t *testing.T) {
	const chars = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"example.com/widgets", nil},
		{"rc", nil},
		{"", []string{"name part must be non-empty", chars}},
		{"bad rc!", []string{chars}},
	} {
		if got := QualifiedNameErrors(c.in); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("QualifiedNameErrors(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
