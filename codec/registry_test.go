package codec

import (
	"errors"
	"io"
	"net/http"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

func newTestRegistry() *Registry { return NewRegistry(JSON{}, YAML{}) }

// namedJSON is a JSON serializer told apart from JSON{} by a label, to see
// which of two same-typed serializers a registry kept.
type namedJSON struct {
	JSON
	label string
}

// fakeSerializer serves a media type the registry does not know otherwise.
type fakeSerializer struct{ mediaType string }

func (f fakeSerializer) MediaType() string                 { return f.mediaType }
func (fakeSerializer) Encode(io.Writer, any) error         { return nil }
func (fakeSerializer) Decode([]byte, any) ([]error, error) { return nil, nil }

func TestNewRegistry(t *testing.T) {
	r := newTestRegistry()
	if diff := cmp.Diff([]string{MediaTypeJSON, MediaTypeYAML}, r.MediaTypes()); diff != "" {
		t.Errorf("MediaTypes() (-want +got):\n%s", diff)
	}
	if s, ok := r.Lookup(MediaTypeYAML); !ok || s.MediaType() != MediaTypeYAML {
		t.Errorf("Lookup(yaml) = %v, %v", s, ok)
	}
	if _, ok := r.Lookup("application/vnd.kubernetes.protobuf"); ok {
		t.Error("Lookup(protobuf) found a serializer")
	}

	// A later serializer of the same type replaces the earlier one in place.
	r = NewRegistry(namedJSON{label: "first"}, YAML{}, namedJSON{label: "second"})
	if diff := cmp.Diff([]string{MediaTypeJSON, MediaTypeYAML}, r.MediaTypes()); diff != "" {
		t.Errorf("MediaTypes() (-want +got):\n%s", diff)
	}
	if s, _ := r.Lookup(MediaTypeJSON); s.(namedJSON).label != "second" {
		t.Errorf("Lookup(json) = %v, want the second", s)
	}
	if s, _, _ := r.Negotiate("", nil); s.(namedJSON).label != "second" {
		t.Errorf("default = %v, want the second", s)
	}
}

// TestNegotiate covers the Accept headers real clients send and the edge
// cases of q-values and wildcards.
func TestNegotiate(t *testing.T) {
	cases := []struct {
		name   string
		header string
		want   string            // media type chosen, "" for 406
		params map[string]string // parameters of the chosen entry
	}{
		{name: "no header is the default", header: "", want: MediaTypeJSON},
		{name: "json", header: "application/json", want: MediaTypeJSON},
		{name: "yaml", header: "application/yaml", want: MediaTypeYAML},
		{name: "any", header: "*/*", want: MediaTypeJSON},
		{name: "bare star", header: "*", want: MediaTypeJSON},
		{name: "any application", header: "application/*", want: MediaTypeJSON},
		{name: "first acceptable in header order", header: "application/yaml, application/json", want: MediaTypeYAML},
		{name: "higher q wins", header: "application/yaml;q=0.5, application/json", want: MediaTypeJSON},
		{name: "specific beats wildcard", header: "*/*, application/yaml", want: MediaTypeYAML},
		{name: "unknown skipped", header: "text/html, application/yaml", want: MediaTypeYAML},
		{name: "unknown then wildcard", header: "text/html, */*;q=0.1", want: MediaTypeJSON},
		{name: "q=0 excluded", header: "application/json;q=0", want: ""},
		{name: "q=0 excluded, next taken", header: "application/json;q=0, application/yaml;q=0.1", want: MediaTypeYAML},
		{name: "wildcard q=0 excluded", header: "*/*;q=0", want: ""},
		{name: "unknown type", header: "text/html", want: ""},
		{name: "unknown wildcard", header: "text/*", want: ""},
		{name: "protobuf not served", header: "application/vnd.kubernetes.protobuf", want: ""},
		{name: "client-go protobuf falls back to json", header: clientGoProtoAccept, want: MediaTypeJSON},
		// A header with no usable entry counts as no header. (kube-apiserver
		// reads "application/json;x" as JSON, dropping the bad parameter,
		// and answers 406 to "a/b/c"; kapi serves the default to both.)
		{name: "malformed only is no header", header: "application/json;x", want: MediaTypeJSON},
		{name: "unparseable only is no header", header: "a/b/c", want: MediaTypeJSON},
		{name: "charset kept", header: "application/json; charset=utf-8", want: MediaTypeJSON, params: map[string]string{"charset": "utf-8"}},
		{name: "kubectl table, no filter takes the first entry", header: kubectlTableAccept, want: MediaTypeJSON,
			params: map[string]string{"as": "Table", "v": "v1", "g": "meta.k8s.io"}},
		{name: "wildcard carries its parameters", header: "*/*;as=Table;v=v1;g=meta.k8s.io", want: MediaTypeJSON,
			params: map[string]string{"as": "Table", "v": "v1", "g": "meta.k8s.io"}},
	}
	r := newTestRegistry()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, mt, err := r.Negotiate(tc.header, nil)
			if tc.want == "" {
				checkNotAcceptable(t, s, err)
				return
			}
			if err != nil {
				t.Fatalf("Negotiate(%q): %v", tc.header, err)
			}
			if s.MediaType() != tc.want || mt.Type != tc.want {
				t.Errorf("Negotiate(%q) = %s (%s), want %s", tc.header, s.MediaType(), mt.Type, tc.want)
			}
			if diff := cmp.Diff(tc.params, mt.Params, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
		})
	}
}

func checkNotAcceptable(t *testing.T, s Serializer, err error) {
	t.Helper()
	if s != nil {
		t.Errorf("serializer = %s, want none", s.MediaType())
	}
	var se *status.Error
	if !errors.As(err, &se) {
		t.Fatalf("error = %v, want a *status.Error", err)
	}
	if !status.IsNotAcceptable(err) || se.Status.Code != http.StatusNotAcceptable || se.Status.Reason != meta.StatusReasonNotAcceptable {
		t.Errorf("status = %d %s, want 406 NotAcceptable", se.Status.Code, se.Status.Reason)
	}
	if want := "only the following media types are accepted: application/json, application/yaml"; se.Status.Message != want {
		t.Errorf("message = %q, want %q", se.Status.Message, want)
	}
}

// tableFilter accepts what a list handler that can produce meta.k8s.io/v1
// Tables (but not v1beta1) accepts: plain JSON or YAML, and as=Table only
// at v1 in meta.k8s.io.
func tableFilter(mt MediaType, _ Serializer) bool {
	switch mt.Param("as") {
	case "":
		return true
	case "Table":
		return mt.Param("v") == "v1" && mt.Param("g") == "meta.k8s.io"
	}
	return false
}

// TestNegotiateFilter covers the accept callback: entries it refuses are
// skipped, the next is tried, and when it refuses everything the answer is
// 406.
func TestNegotiateFilter(t *testing.T) {
	noParams := func(mt MediaType, _ Serializer) bool { return len(mt.Params) == 0 }
	onlyYAML := func(_ MediaType, s Serializer) bool { return s.MediaType() == MediaTypeYAML }
	never := func(MediaType, Serializer) bool { return false }
	discoveryV2beta1 := func(mt MediaType, _ Serializer) bool {
		return mt.Param("as") == "APIGroupDiscoveryList" && mt.Param("v") == "v2beta1"
	}

	cases := []struct {
		name   string
		header string
		accept func(MediaType, Serializer) bool
		want   string
		params map[string]string
	}{
		{"kubectl table at v1", kubectlTableAccept, tableFilter, MediaTypeJSON, map[string]string{"as": "Table", "v": "v1", "g": "meta.k8s.io"}},
		{"kubectl table at v1beta1 only", "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", tableFilter, MediaTypeJSON, nil},
		{"no tables served: plain json", kubectlTableAccept, noParams, MediaTypeJSON, nil},
		{"table with no fallback refused", "application/json;as=Table;v=v1beta1;g=meta.k8s.io", tableFilter, "", nil},
		{"discovery v2beta1", discoveryAccept, discoveryV2beta1, MediaTypeJSON,
			map[string]string{"g": "apidiscovery.k8s.io", "v": "v2beta1", "as": "APIGroupDiscoveryList"}},
		{"discovery without aggregated: plain json", discoveryAccept, noParams, MediaTypeJSON, nil},
		{"wildcard tries each serializer", "*/*", onlyYAML, MediaTypeYAML, nil},
		{"application wildcard tries each serializer", "application/*", onlyYAML, MediaTypeYAML, nil},
		{"empty header vetted too", "", onlyYAML, "", nil},
		{"empty header default accepted", "", noParams, MediaTypeJSON, nil},
		{"nothing accepted", kubectlTableAccept, never, "", nil},
	}
	r := newTestRegistry()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, mt, err := r.Negotiate(tc.header, tc.accept)
			if tc.want == "" {
				checkNotAcceptable(t, s, err)
				return
			}
			if err != nil {
				t.Fatalf("Negotiate(%q): %v", tc.header, err)
			}
			if s.MediaType() != tc.want || mt.Type != tc.want {
				t.Errorf("Negotiate(%q) = %s (%s), want %s", tc.header, s.MediaType(), mt.Type, tc.want)
			}
			if diff := cmp.Diff(tc.params, mt.Params, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNegotiateFilterSeesCandidates records what the filter is asked, in
// order, for a wildcard: every serializer, default first, each with the
// entry's parameters.
func TestNegotiateFilterSeesCandidates(t *testing.T) {
	var asked []string
	_, _, err := newTestRegistry().Negotiate("application/*;as=Table", func(mt MediaType, s Serializer) bool {
		if mt.Type != s.MediaType() {
			t.Errorf("filter got %s for serializer %s", mt.Type, s.MediaType())
		}
		asked = append(asked, mt.String())
		return false
	})
	if !status.IsNotAcceptable(err) {
		t.Fatalf("err = %v, want NotAcceptable", err)
	}
	want := []string{"application/json;as=Table", "application/yaml;as=Table"}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("filter asked (-want +got):\n%s", diff)
	}
}

// TestNegotiateDefault checks that the first serializer given is the
// default.
func TestNegotiateDefault(t *testing.T) {
	r := NewRegistry(YAML{}, JSON{})
	for _, h := range []string{"", "*/*", "application/*"} {
		if s, _, err := r.Negotiate(h, nil); err != nil || s.MediaType() != MediaTypeYAML {
			t.Errorf("Negotiate(%q) = %v, %v; want yaml", h, s, err)
		}
	}
	r = NewRegistry(JSON{}, fakeSerializer{"application/vnd.kubernetes.protobuf"})
	if s, _, err := r.Negotiate(clientGoProtoAccept, nil); err != nil || s.MediaType() != "application/vnd.kubernetes.protobuf" {
		t.Errorf("Negotiate(protobuf) = %v, %v", s, err)
	}
}

func TestForContentType(t *testing.T) {
	cases := []struct {
		name   string
		ct     string
		want   string // "" for 415
		params map[string]string
	}{
		{name: "empty is json", ct: "", want: MediaTypeJSON},
		{name: "json", ct: "application/json", want: MediaTypeJSON},
		{name: "json with charset", ct: "application/json; charset=utf-8", want: MediaTypeJSON, params: map[string]string{"charset": "utf-8"}},
		{name: "upper case", ct: "Application/JSON", want: MediaTypeJSON},
		{name: "yaml", ct: "application/yaml", want: MediaTypeYAML},
		{name: "unknown", ct: "text/plain", want: ""},
		{name: "protobuf not served", ct: "application/vnd.kubernetes.protobuf", want: ""},
		// Patch types are the patch handler's business, not a decoder's.
		{name: "merge patch", ct: "application/merge-patch+json", want: ""},
		{name: "wildcard", ct: "*/*", want: ""},
		{name: "malformed", ct: "application/json;charset", want: ""},
		{name: "no subtype", ct: "application/", want: ""},
		{name: "garbage", ct: "\x00\xff", want: ""},
	}
	r := newTestRegistry()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, mt, err := r.ForContentType(tc.ct)
			if tc.want == "" {
				if s != nil {
					t.Errorf("serializer = %s, want none", s.MediaType())
				}
				var se *status.Error
				if !errors.As(err, &se) {
					t.Fatalf("error = %v, want a *status.Error", err)
				}
				if !status.IsUnsupportedMediaType(err) || se.Status.Code != http.StatusUnsupportedMediaType {
					t.Errorf("status = %d %s, want 415 UnsupportedMediaType", se.Status.Code, se.Status.Reason)
				}
				if want := "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml"; se.Status.Message != want {
					t.Errorf("message = %q, want %q", se.Status.Message, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("ForContentType(%q): %v", tc.ct, err)
			}
			if s.MediaType() != tc.want || mt.Type != tc.want {
				t.Errorf("ForContentType(%q) = %s (%s), want %s", tc.ct, s.MediaType(), mt.Type, tc.want)
			}
			if diff := cmp.Diff(tc.params, mt.Params, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRegistryConcurrent uses one registry from many goroutines; run with
// -race.
func TestRegistryConcurrent(t *testing.T) {
	r := newTestRegistry()
	done := make(chan struct{})
	for i := 0; i < 8; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for j := 0; j < 200; j++ {
				if _, _, err := r.Negotiate(kubectlTableAccept, tableFilter); err != nil {
					t.Error(err)
					return
				}
				if _, _, err := r.ForContentType("application/yaml"); err != nil {
					t.Error(err)
					return
				}
				_ = r.MediaTypes()
			}
		}()
	}
	for i := 0; i < 8; i++ {
		<-done
	}
}

// TestNegotiateBare: the Accept headers answered without parsing are
// answered as parsing them would, and a bare JSON one allocates nothing.
func TestNegotiateBare(t *testing.T) {
	r := NewRegistry(JSON{}, YAML{}, fakeSerializer{"application/vnd.kubernetes.protobuf"})
	noYAML := func(mt MediaType, _ Serializer) bool { return mt.Type != "application/yaml" }
	for _, header := range []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf",
		"Application/JSON", "application/json;as=Table;v=v1;g=meta.k8s.io", "application/json, */*", "*/*", "*",
		"application/*", "text/html", "", " application/json", "application/json\t", "application/json;q=0"} {
		for _, accept := range []func(MediaType, Serializer) bool{nil, noYAML} {
			s, mt, err := r.Negotiate(header, accept)
			ws, wmt, werr := r.negotiateParsed(header, accept)
			if !reflect.DeepEqual(s, ws) || mt.Type != wmt.Type || len(mt.Params) != len(wmt.Params) || (err == nil) != (werr == nil) {
				t.Errorf("Negotiate(%q, filtered %v) = %v, %+v, %v; parsed: %v, %+v, %v", header, accept != nil, s, mt, err, ws, wmt, werr)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { _, _, _ = r.Negotiate("application/json", nil) }); n != 0 {
		t.Errorf("Negotiate(application/json): %v allocations, want 0", n)
	}
}
