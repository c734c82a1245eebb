package codec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The Accept header kubectl sends when it wants server-side printing
// (kubectl get), and the one client-go's discovery client sends for
// aggregated discovery.
const (
	kubectlTableAccept  = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	discoveryAccept     = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
	clientGoProtoAccept = "application/vnd.kubernetes.protobuf,application/json"
)

// acc is shorthand for an expected Accept entry.
func acc(typ string, q float64, params ...string) Accepted {
	a := Accepted{MediaType: MediaType{Type: typ}, Q: q}
	if len(params) > 0 {
		a.Params = map[string]string{}
		for i := 0; i+1 < len(params); i += 2 {
			a.Params[params[i]] = params[i+1]
		}
	}
	return a
}

func TestParseMediaType(t *testing.T) {
	cases := []struct {
		in      string
		want    MediaType
		wantErr bool
	}{
		{in: "application/json", want: MediaType{Type: "application/json"}},
		{in: "Application/JSON", want: MediaType{Type: "application/json"}},
		{in: "application/json; charset=utf-8", want: MediaType{Type: "application/json", Params: map[string]string{"charset": "utf-8"}}},
		{in: `application/json;charset="utf-8"`, want: MediaType{Type: "application/json", Params: map[string]string{"charset": "utf-8"}}},
		// Parameter names are case-insensitive, values are not.
		{in: "application/json;AS=Table;V=v1;G=meta.k8s.io", want: MediaType{Type: "application/json", Params: map[string]string{"as": "Table", "v": "v1", "g": "meta.k8s.io"}}},
		{in: "application/json;", want: MediaType{Type: "application/json"}},
		{in: "", wantErr: true},
		{in: "/json", wantErr: true},
		{in: "application/", wantErr: true},
		{in: "a/b/c", wantErr: true},
		{in: "application/json;x", wantErr: true},
		{in: "application/json;a=1;A=2", wantErr: true},
		{in: `application/json;x="unterminated`, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseMediaType(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("ParseMediaType(%q) = %+v, want an error", tc.in, got)
				}
				if !strings.Contains(err.Error(), "invalid media type") {
					t.Errorf("error %q does not say invalid media type", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseMediaType(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestMediaTypeString(t *testing.T) {
	cases := []struct {
		mt   MediaType
		want string
	}{
		{MediaType{Type: "application/json"}, "application/json"},
		{MediaType{Type: "application/json", Params: map[string]string{}}, "application/json"},
		// Parameters in sorted order, whatever the map's order.
		{MediaType{Type: "application/json", Params: map[string]string{"v": "v1", "g": "meta.k8s.io", "as": "Table"}}, "application/json;as=Table;g=meta.k8s.io;v=v1"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.mt.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
	mt := MediaType{Type: "application/json", Params: map[string]string{"as": "Table"}}
	if mt.Param("as") != "Table" || mt.Param("v") != "" {
		t.Errorf("Param: as=%q v=%q", mt.Param("as"), mt.Param("v"))
	}
	if (MediaType{}).Param("as") != "" {
		t.Error("Param on nil params")
	}
}

func TestParseAccept(t *testing.T) {
	cases := []struct {
		name   string
		header string
		want   []Accepted
	}{
		{"empty", "", nil},
		{"blank", "  \t ", nil},
		{"one", "application/json", []Accepted{acc("application/json", 1)}},
		{"header order kept for equal preference", "application/yaml, application/json",
			[]Accepted{acc("application/yaml", 1), acc("application/json", 1)}},
		{"q descending", "application/yaml;q=0.5, application/json;q=0.9, text/plain",
			[]Accepted{acc("text/plain", 1), acc("application/json", 0.9), acc("application/yaml", 0.5)}},
		{"q=1 explicit equals implicit", "application/yaml;q=1, application/json",
			[]Accepted{acc("application/yaml", 1), acc("application/json", 1)}},
		{"q three decimals", "application/json;q=0.001, application/yaml;q=0.01",
			[]Accepted{acc("application/yaml", 0.01), acc("application/json", 0.001)}},
		{"q=0 kept, last", "application/json;q=0, application/yaml",
			[]Accepted{acc("application/yaml", 1), acc("application/json", 0)}},
		{"leading-dot q", "*/*;q=.2, application/json", []Accepted{acc("application/json", 1), acc("*/*", 0.2)}},
		// Out-of-range or unreadable q values count as 1 and are dropped
		// from the parameters.
		{"q out of range", "application/json;q=2", []Accepted{acc("application/json", 1)}},
		{"q negative", "application/json;q=-1", []Accepted{acc("application/json", 1)}},
		{"q unreadable", "application/json;q=high", []Accepted{acc("application/json", 1)}},
		{"q removed, other params kept", "application/json;as=Table;q=0.5",
			[]Accepted{acc("application/json", 0.5, "as", "Table")}},
		{"specificity at equal q", "*/*, application/*, application/json",
			[]Accepted{acc("application/json", 1), acc("application/*", 1), acc("*/*", 1)}},
		{"q beats specificity", "application/json;q=0.5, */*",
			[]Accepted{acc("*/*", 1), acc("application/json", 0.5)}},
		{"bare star is */*", "*", []Accepted{acc("*/*", 1)}},
		{"bare star with q, as java clients send", "text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2",
			[]Accepted{acc("text/html", 1), acc("image/gif", 1), acc("image/jpeg", 1), acc("*/*", 0.2), acc("*/*", 0.2)}},
		{"case folded", "Application/JSON", []Accepted{acc("application/json", 1)}},
		{"spaces everywhere", "  application/json ; q=0.9 ,application/yaml ",
			[]Accepted{acc("application/yaml", 1), acc("application/json", 0.9)}},
		{"empty entries skipped", ",,application/json,, ,", []Accepted{acc("application/json", 1)}},
		{"malformed entries skipped", "application/json;x, /json, application/, a/b/c, text, application/json;a=1;a=2, application/yaml",
			[]Accepted{acc("application/yaml", 1)}},
		{"quoted parameter with comma", `application/json;profile="a,b", application/yaml`,
			[]Accepted{acc("application/json", 1, "profile", "a,b"), acc("application/yaml", 1)}},
		{"quoted parameter with semicolon and equals", `application/json;profile="x;y=z";q=0.5, text/plain`,
			[]Accepted{acc("text/plain", 1), acc("application/json", 0.5, "profile", "x;y=z")}},
		{"unterminated quote swallows the rest", `application/json;p="a, application/yaml`, []Accepted{}},
		{"kubectl table", kubectlTableAccept, []Accepted{
			acc("application/json", 1, "as", "Table", "v", "v1", "g", "meta.k8s.io"),
			acc("application/json", 1, "as", "Table", "v", "v1beta1", "g", "meta.k8s.io"),
			acc("application/json", 1),
		}},
		{"client-go discovery", discoveryAccept, []Accepted{
			acc("application/json", 1, "g", "apidiscovery.k8s.io", "v", "v2", "as", "APIGroupDiscoveryList"),
			acc("application/json", 1, "g", "apidiscovery.k8s.io", "v", "v2beta1", "as", "APIGroupDiscoveryList"),
			acc("application/json", 1),
		}},
		{"client-go protobuf", clientGoProtoAccept, []Accepted{
			acc("application/vnd.kubernetes.protobuf", 1),
			acc("application/json", 1),
		}},
		{"kubectl watch table", "application/json;as=Table;v=v1;g=meta.k8s.io;stream=watch, application/json", []Accepted{
			acc("application/json", 1, "as", "Table", "v", "v1", "g", "meta.k8s.io", "stream", "watch"),
			acc("application/json", 1),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseAccept(tc.header)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseAccept(%q) (-want +got):\n%s", tc.header, diff)
			}
		})
	}
}

func fmtAccepted(l []Accepted) string {
	parts := make([]string, len(l))
	for i, a := range l {
		parts[i] = fmt.Sprintf("%s;q=%g", a.MediaType, a.Q)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func TestSplitAccept(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"a,b", []string{"a", "b"}},
		{`a;p="x,y",b`, []string{`a;p="x,y"`, "b"}},
		{`a;p="x,y"",",b`, []string{`a;p="x,y"","`, "b"}},
		{",", []string{"", ""}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, splitAccept(tc.in)); diff != "" {
			t.Errorf("splitAccept(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}
