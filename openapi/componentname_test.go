package openapi

import "testing"

// Component names are kube's: built-in kinds after their Go package,
// custom kinds after their reversed group (taken from the reference's
// /openapi/v3 documents).
func TestComponentName(t *testing.T) {
	for _, tc := range []struct{ group, version, kind, want string }{
		{"", "v1", "Namespace", "io.k8s.api.core.v1.Namespace"},
		{"coordination.k8s.io", "v1", "Lease", "io.k8s.api.coordination.v1.Lease"},
		{"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy"},
		{"apiextensions.k8s.io", "v1", "CustomResourceDefinition", "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"},
		{"apps", "v1", "Deployment", "io.k8s.api.apps.v1.Deployment"},
		{"stable.example.com", "v1", "Widget", "com.example.stable.v1.Widget"},
	} {
		if got := componentName(tc.group, tc.version, tc.kind); got != tc.want {
			t.Errorf("%s/%s %s: %s, want %s", tc.group, tc.version, tc.kind, got, tc.want)
		}
	}
}
