package registry

import (
	"slices"
	"strings"
	"testing"
)

// Versions rank as kube-apiserver ranks them: kube-like ones first (GA,
// beta, alpha; higher numbers first), any other name after, alphabetical.
func TestSortVersions(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{[]string{"v1alpha1", "v1", "v1beta1"}, []string{"v1", "v1beta1", "v1alpha1"}},
		{[]string{"v11alpha2", "foo10", "v10", "v2", "v1", "v12alpha1", "foo1", "v3beta1", "v10beta3", "v1beta1"},
			[]string{"v10", "v2", "v1", "v10beta3", "v3beta1", "v1beta1", "v12alpha1", "v11alpha2", "foo1", "foo10"}},
		{[]string{"v1beta10", "v1beta2", "v2beta1"}, []string{"v2beta1", "v1beta10", "v1beta2"}},
		{[]string{"zeta", "alpha", "v1", "v1x"}, []string{"v1", "alpha", "v1x", "zeta"}},
	}
	for _, tc := range tests {
		if got := SortVersions(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("sortVersions(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A CustomResourceDefinition's version may be any DNS-1035 label.
func TestValidVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"v1": true, "v1beta1": true, "foo": true, "v1-x": true, "beta": true,
		"": false, "1beta": false, "v1.0": false, "V1": false, "v1-": false,
		strings.Repeat("v", 63): true, strings.Repeat("v", 64): false,
	} {
		if got := ValidVersion(v); got != want {
			t.Errorf("validVersion(%q) = %v, want %v", v, got, want)
		}
	}
}
