package meta

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fieldSet makes a get function for FieldSelector.Matches from a map.
func fieldSet(m map[string]string) func(string) (string, bool) {
	return func(f string) (string, bool) {
		v, ok := m[f]
		return v, ok
	}
}

var (
	fsWeb     = map[string]string{"metadata.name": "web", "metadata.namespace": "default", "status.phase": "Running"}
	fsDB      = map[string]string{"metadata.name": "db", "metadata.namespace": "prod", "status.phase": "Failed"}
	fsOdd     = map[string]string{"metadata.name": `a,b=c\d`, "spec.note": "", "x": "!"}
	fsNoPhase = map[string]string{"metadata.name": "web"}
)

type fieldMatchCase struct {
	fields map[string]string
	want   bool
}

func TestParseFieldSelectorValid(t *testing.T) {
	tests := []struct {
		in      string
		str     string
		fields  []string
		matches []fieldMatchCase
	}{
		{"", "", []string{}, []fieldMatchCase{{fsWeb, true}, {nil, true}}},
		{",,", "", []string{}, []fieldMatchCase{{fsWeb, true}}},
		{"=", "", []string{}, []fieldMatchCase{{fsWeb, true}}},
		{"metadata.name=web", "metadata.name=web", []string{"metadata.name"},
			[]fieldMatchCase{{fsWeb, true}, {fsDB, false}, {nil, false}}},
		{"metadata.name==web", "metadata.name=web", []string{"metadata.name"},
			[]fieldMatchCase{{fsWeb, true}, {fsDB, false}}},
		{"status.phase!=Failed", "status.phase!=Failed", []string{"status.phase"},
			[]fieldMatchCase{{fsWeb, true}, {fsDB, false}, {fsNoPhase, false}}},
		{"status.phase!=Failed,metadata.namespace=default", "metadata.namespace=default,status.phase!=Failed",
			[]string{"metadata.namespace", "status.phase"},
			[]fieldMatchCase{{fsWeb, true}, {fsDB, false}, {fsNoPhase, false}}},
		{`metadata.name=a\,b\=c\\d`, `metadata.name=a\,b\=c\\d`, []string{"metadata.name"},
			[]fieldMatchCase{{fsOdd, true}, {fsWeb, false}}},
		{"spec.note=", "spec.note=", []string{"spec.note"}, []fieldMatchCase{{fsOdd, true}, {fsWeb, false}}},
		{"x=!", "x=!", []string{"x"}, []fieldMatchCase{{fsOdd, true}, {fsWeb, false}}},
		{"x!=!", "x!=!", []string{"x"}, []fieldMatchCase{{fsOdd, false}, {fsWeb, false}}},
		{"metadata.name!=web,metadata.name!=db", "metadata.name!=db,metadata.name!=web", []string{"metadata.name"},
			[]fieldMatchCase{{fsWeb, false}, {fsDB, false}, {fsOdd, true}}},
		{" metadata.name = web", " metadata.name = web", []string{" metadata.name "},
			[]fieldMatchCase{{fsWeb, false}, {map[string]string{" metadata.name ": " web"}, true}}},
		{"a!!=b", "a!!=b", []string{"a!"}, []fieldMatchCase{{map[string]string{"a!": "c"}, true}}},
		// Field names take no escapes: this is field `a\` with value b.
		{`a\=b`, `a\=b`, []string{`a\`}, []fieldMatchCase{{map[string]string{`a\`: "b"}, true}, {map[string]string{"a=b": ""}, false}}},
		{"=v", "=v", []string{""}, []fieldMatchCase{{map[string]string{"": "v"}, true}, {fsWeb, false}}},
	}
	for _, tt := range tests {
		sel, err := ParseFieldSelector(tt.in)
		if err != nil {
			t.Errorf("ParseFieldSelector(%q): %v", tt.in, err)
			continue
		}
		if got := sel.String(); got != tt.str {
			t.Errorf("ParseFieldSelector(%q).String() = %q, want %q", tt.in, got, tt.str)
		}
		if got, want := sel.Empty(), tt.str == ""; got != want {
			t.Errorf("ParseFieldSelector(%q).Empty() = %v, want %v", tt.in, got, want)
		}
		if diff := cmp.Diff(tt.fields, sel.Fields()); diff != "" {
			t.Errorf("ParseFieldSelector(%q).Fields() (-want +got):\n%s", tt.in, diff)
		}
		for _, m := range tt.matches {
			if got := sel.Matches(fieldSet(m.fields)); got != m.want {
				t.Errorf("ParseFieldSelector(%q).Matches(%q) = %v, want %v", tt.in, m.fields, got, m.want)
			}
		}
		again, err := ParseFieldSelector(sel.String())
		if err != nil || again.String() != sel.String() {
			t.Errorf("ParseFieldSelector(%q) does not round-trip through %q: %q, %v", tt.in, sel.String(), again.String(), err)
		}
	}
}

func TestParseFieldSelectorInvalid(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "invalid selector: 'a'; can't understand 'a'"},
		{"a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"},
		{"a!b", "invalid selector: 'a!b'; can't understand 'a!b'"},
		{"a=b=c", "invalid field selector: unescaped character in value: 61"},
		{"a===b", "invalid field selector: unescaped character in value: 61"},
		{`a=b\`, `invalid field selector: invalid escape sequence: \`},
		{`a=b\x`, `invalid field selector: invalid escape sequence: \x`},
		{`a=b\!`, `invalid field selector: invalid escape sequence: \!`},
		{`a=b\é`, `invalid field selector: invalid escape sequence: \é`},
		{`z=ok,a=\q`, `invalid field selector: invalid escape sequence: \q`},
	}
	for _, tt := range tests {
		sel, err := ParseFieldSelector(tt.in)
		if err == nil {
			t.Errorf("ParseFieldSelector(%q) = %q, want error %q", tt.in, sel.String(), tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("ParseFieldSelector(%q) error = %q, want %q", tt.in, err, tt.want)
		}
	}
}

func TestFieldSelectorRequiresExactMatch(t *testing.T) {
	sel, err := ParseFieldSelector("status.phase!=Failed,metadata.name==web,metadata.namespace=default")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		field, value string
		ok           bool
	}{
		{"metadata.name", "web", true},
		{"metadata.namespace", "default", true},
		{"status.phase", "", false},
		{"spec.x", "", false},
	} {
		if v, ok := sel.RequiresExactMatch(tt.field); v != tt.value || ok != tt.ok {
			t.Errorf("RequiresExactMatch(%q) = %q, %v; want %q, %v", tt.field, v, ok, tt.value, tt.ok)
		}
	}
	var zero FieldSelector
	if v, ok := zero.RequiresExactMatch("metadata.name"); ok || v != "" {
		t.Errorf("zero FieldSelector RequiresExactMatch = %q, %v", v, ok)
	}
	if !zero.Empty() || zero.String() != "" || !zero.Matches(fieldSet(nil)) || len(zero.Fields()) != 0 {
		t.Error("zero FieldSelector is not the empty selector")
	}
}

func TestFieldSelectorFieldsIsACopy(t *testing.T) {
	sel, _ := ParseFieldSelector("a=1,b=2")
	sel.Fields()[0] = "changed"
	if got := sel.Fields()[0]; got != "a" {
		t.Errorf("Fields()[0] = %q after the caller changed its slice", got)
	}
}

func TestFieldSelectorMatchesDoesNotAllocate(t *testing.T) {
	sel, err := ParseFieldSelector(`metadata.name=web,metadata.namespace!=kube-system,status.phase!=Failed`)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string]string{fsWeb, fsDB, fsNoPhase} {
		get := fieldSet(m)
		if n := testing.AllocsPerRun(100, func() { sel.Matches(get) }); n != 0 {
			t.Errorf("Matches(%v) allocates %v times", m, n)
		}
	}
}

func FuzzParseFieldSelector(f *testing.F) {
	for _, s := range []string{"", "a=b", "a==b", "a!=b", `a=\,\=\\`, "a=b,c!=d", "=", "a!!=b", ",,a=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseFieldSelector(s)
		if err != nil {
			return
		}
		str := sel.String()
		again, err := ParseFieldSelector(str)
		if err != nil {
			t.Fatalf("%q parses, but its String %q does not: %v", s, str, err)
		}
		// Terms are ordered by source text, which escaping can reorder, so
		// compare them as sets.
		if !sameFieldTerms(sel.terms, again.terms) {
			t.Fatalf("%q parses to %+v, but its String %q parses to %+v", s, sel.terms, str, again.terms)
		}
	})
}

func sameFieldTerms(a, b []fieldTerm) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[fieldTerm]int{}
	for _, t := range a {
		count[t]++
	}
	for _, t := range b {
		count[t]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
