package registry

import (
	"testing"

	"github.com/kapi-dev/kapi/apiserver/kinds"
	"github.com/kapi-dev/kapi/meta"
)

// The default deprecation warning names the version kube-apiserver names:
// the highest served, not deprecated version ranking above the deprecated
// one, whatever version discovery prefers.
func TestDeprecationWarningNamesNewerVersion(t *testing.T) {
	type v = kinds.KindVersion
	tests := []struct {
		name     string
		versions []kinds.KindVersion
		of       string
		want     string
	}{
		{"beta deprecated for GA",
			[]v{{Name: "v1", Storage: true}, {Name: "v1beta1", Deprecated: true}}, "v1beta1",
			"stable.example.com/v1beta1 Widget is deprecated; use stable.example.com/v1 Widget"},
		{"the highest of the newer versions",
			[]v{{Name: "v1beta1", Deprecated: true, Storage: true}, {Name: "v1"}, {Name: "v2"}, {Name: "v1beta2"}}, "v1beta1",
			"stable.example.com/v1beta1 Widget is deprecated; use stable.example.com/v2 Widget"},
		{"only versions ranking above count",
			[]v{{Name: "v2", Deprecated: true, Storage: true}, {Name: "v1"}, {Name: "v3beta1"}}, "v2",
			"stable.example.com/v2 Widget is deprecated"},
		{"the only served version, deprecated",
			[]v{{Name: "v1", Deprecated: true, Storage: true}}, "v1",
			"stable.example.com/v1 Widget is deprecated"},
		{"every version deprecated",
			[]v{{Name: "v1", Deprecated: true, Storage: true}, {Name: "v1beta1", Deprecated: true}}, "v1beta1",
			"stable.example.com/v1beta1 Widget is deprecated"},
		{"the newest version deprecated, preferred in discovery",
			[]v{{Name: "v2", Deprecated: true}, {Name: "v1", Storage: true}}, "v2",
			"stable.example.com/v2 Widget is deprecated"},
		{"newer but not served",
			[]v{{Name: "v1beta1", Deprecated: true, Storage: true}, {Name: "v1", NotServed: true}, {Name: "v1beta2"}}, "v1beta1",
			"stable.example.com/v1beta1 Widget is deprecated; use stable.example.com/v1beta2 Widget"},
		{"newer but deprecated",
			[]v{{Name: "v1alpha1", Deprecated: true, Storage: true}, {Name: "v1", Deprecated: true}, {Name: "v1beta1"}}, "v1alpha1",
			"stable.example.com/v1alpha1 Widget is deprecated; use stable.example.com/v1beta1 Widget"},
		{"a warning of its own",
			[]v{{Name: "v1", Storage: true}, {Name: "v1beta1", Deprecated: true, DeprecationWarning: "move on"}}, "v1beta1",
			"move on"},
		{"not deprecated", []v{{Name: "v1", Storage: true}, {Name: "v1beta1"}}, "v1beta1", ""},
		{"a name that is not kube-like ranks below every kube-like one",
			[]v{{Name: "v1", Storage: true}, {Name: "foo", Deprecated: true}}, "foo",
			"stable.example.com/foo Widget is deprecated; use stable.example.com/v1 Widget"},
		{"a kube-like name ranks above any other",
			[]v{{Name: "v1alpha1", Storage: true, Deprecated: true}, {Name: "foo"}}, "v1alpha1",
			"stable.example.com/v1alpha1 Widget is deprecated"},
		{"other names rank alphabetically",
			[]v{{Name: "zeta", Storage: true, Deprecated: true}, {Name: "beta"}, {Name: "alpha"}}, "zeta",
			"stable.example.com/zeta Widget is deprecated; use stable.example.com/alpha Widget"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := kinds.Kind{Group: "stable.example.com", Kind: "Widget", Resource: "widgets",
				New: func() meta.Object { return &meta.Unstructured{} }, Versions: tc.versions}
			if got := DeprecationWarning(k, tc.of); got != tc.want {
				t.Errorf("warning of %s:\n got %q\nwant %q", tc.of, got, tc.want)
			}
		})
	}
}
