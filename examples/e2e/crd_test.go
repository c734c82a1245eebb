package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// certManagerCRD is cert-manager's Certificate definition as published in
// its repository (deploy/crds), under its Apache-2.0 licence (LICENSE
// next to it).
const certManagerCRD = "testdata/crds/cert-manager/cert-manager.io_certificates.yaml"

const certificateYAML = `apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: web
spec:
  secretName: web-tls
  dnsNames: [web.example.com]
  duration: %s
  issuerRef: {name: ca, kind: ClusterIssuer}
`

// kubectl applies a real operator's definition, then works with its
// kind as with any other: get, explain, apply of objects, and delete crd,
// which deletes the objects before the kind goes.
func TestKubectlCustomResourceDefinition(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)

	out := kubectl(t, k, "", "apply", "-f", certManagerCRD)
	if !strings.Contains(out, "customresourcedefinition.apiextensions.k8s.io/certificates.cert-manager.io created") {
		t.Fatalf("apply crd: %s", out)
	}
	out = kubectl(t, k, "", "wait", "--for=condition=Established", "--timeout=20s", "crd/certificates.cert-manager.io")
	if !strings.Contains(out, "condition met") {
		t.Fatalf("wait: %s", out)
	}
	out = kubectl(t, k, "", "get", "crd", "certificates.cert-manager.io", "-o", "json")
	var crd struct {
		Status struct {
			Conditions     []struct{ Type, Status, Reason string }
			StoredVersions []string
		}
	}
	if err := json.Unmarshal([]byte(out), &crd); err != nil {
		t.Fatal(err)
	}
	conds := map[string]string{}
	for _, c := range crd.Status.Conditions {
		conds[c.Type] = c.Status + "/" + c.Reason
	}
	if conds["NamesAccepted"] != "True/NoConflicts" || conds["Established"] != "True/InitialNamesAccepted" || strings.Join(crd.Status.StoredVersions, ",") != "v1" {
		t.Fatalf("definition status: %s", out)
	}

	out = kubectl(t, k, "", "explain", "certificates.spec.issuerRef")
	for _, want := range []string{"GROUP:      cert-manager.io", "KIND:       Certificate", "Reference to the issuer responsible", "name\t<string> -required-"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}

	out = kubectl(t, k, strings.Replace(certificateYAML, "%s", "2160h", 1), "apply", "-f", "-")
	if !strings.Contains(out, "certificate.cert-manager.io/web created") {
		t.Fatalf("apply certificate: %s", out)
	}
	out = kubectl(t, k, strings.Replace(certificateYAML, "%s", "720h", 1), "apply", "-f", "-")
	if !strings.Contains(out, "certificate.cert-manager.io/web configured") {
		t.Fatalf("apply again: %s", out)
	}
	out = kubectl(t, k, "", "get", "cert", "web", "-o", "jsonpath={.spec.duration}")
	if out != "720h" {
		t.Fatalf("duration after apply: %q", out)
	}
	out = kubectl(t, k, "", "get", "certificates")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 ||
		strings.Join(strings.Fields(lines[0]), " ") != "NAME READY SECRET AGE" || !strings.HasPrefix(lines[1], "web ") || !strings.Contains(lines[1], "web-tls") {
		t.Fatalf("get certificates:\n%s", out)
	}
	errOut := kubectlFails(t, k, strings.Replace(strings.Replace(certificateYAML, "%s", "1h", 1), "issuerRef: {name: ca, kind: ClusterIssuer}", "issuerRef: {kind: ClusterIssuer}", 1), "apply", "-f", "-")
	if !strings.Contains(errOut, "spec.issuerRef.name: Required value") {
		t.Fatalf("apply without a required field: %s", errOut)
	}

	start := time.Now()
	out = kubectl(t, k, "", "delete", "crd", "certificates.cert-manager.io")
	if !strings.Contains(out, `customresourcedefinition.apiextensions.k8s.io "certificates.cert-manager.io" deleted`) {
		t.Fatalf("delete crd: %s", out)
	}
	t.Logf("delete crd took %v", time.Since(start))
	errOut = kubectlFails(t, k, "", "get", "certificates")
	// kubectl's discovery cache may still name the resource, then the
	// list is a 404; either way the kind is gone.
	if !strings.Contains(errOut, `the server doesn't have a resource type "certificates"`) &&
		!strings.Contains(errOut, `Unable to list "cert-manager.io/v1, Resource=certificates": the server could not find the requested resource`) {
		t.Fatalf("get after delete crd: %s", errOut)
	}
}

// Bad definitions are refused with the Status kube-apiserver would give.
func TestKubectlBadCustomResourceDefinitions(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)
	tests := []struct {
		name, manifest, want string
	}{
		{"collides with a built-in kind", crdYAML("widgets", "stable.example.com", "Widget", `{type: object}`),
			`spec.names.plural: Invalid value: "widgets": resource widgets.stable.example.com is already registered`},
		{"not structural", crdYAML("things", "bad.example.com", "Thing", `{type: object, properties: {spec: {properties: {a: {type: string}}}}}`),
			"spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"},
		{"malformed", strings.Replace(crdYAML("things", "bad.example.com", "Thing", `{type: object}`), "scope: Namespaced", "scope: [Namespaced]", 1),
			"cannot unmarshal"},
		{"bad CEL rule", crdYAML("things", "bad.example.com", "Thing", `{type: object, properties: {spec: {type: object, x-kubernetes-validations: [{rule: "self.nope +"}]}}}`),
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.nope +",`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errOut := kubectlFails(t, k, tc.manifest, "apply", "-f", "-")
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("want %q in:\n%s", tc.want, errOut)
			}
		})
	}
	out := kubectl(t, k, "", "get", "crd")
	if strings.Contains(out, "things") || strings.Contains(out, "widgets") {
		t.Fatalf("a refused definition was stored:\n%s", out)
	}
}

// A definition's CEL rules are evaluated on every write of its kind.
func TestKubectlCustomResourceDefinitionCEL(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)
	manifest := crdYAML("ranges", "cel.example.com", "Range",
		`{type: object, properties: {spec: {type: object, properties: {min: {type: integer}, max: {type: integer}}, x-kubernetes-validations: [{rule: "self.min <= self.max", message: "min must not exceed max"}]}}}`)
	kubectl(t, k, manifest, "apply", "-f", "-")
	kubectl(t, k, "", "wait", "--for=condition=Established", "--timeout=20s", "crd/ranges.cel.example.com")
	kubectl(t, k, "apiVersion: cel.example.com/v1\nkind: Range\nmetadata: {name: ok}\nspec: {min: 1, max: 2}\n", "apply", "-f", "-")
	errOut := kubectlFails(t, k, "apiVersion: cel.example.com/v1\nkind: Range\nmetadata: {name: bad}\nspec: {min: 3, max: 2}\n", "apply", "-f", "-")
	if !strings.Contains(errOut, "min must not exceed max") {
		t.Fatalf("rule: %s", errOut)
	}
}

// TestKubectlCustomResourceDefinitionJunctors applies a definition
// whose schema has anyOf and oneOf with kubectl, and objects that pass
// and fail them.
func TestKubectlCustomResourceDefinitionJunctors(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)
	manifest := crdYAML("backups", "junctors.example.com", "Backup",
		`{type: object, properties: {spec: {type: object, properties: {bucket: {type: string}, volume: {type: string}, keep: {type: integer}, schedule: {type: string}}, oneOf: [{required: [bucket]}, {required: [volume]}], anyOf: [{required: [keep]}, {required: [schedule]}]}}}`)
	out := kubectl(t, k, manifest, "apply", "-f", "-")
	if !strings.Contains(out, "created") {
		t.Fatalf("apply crd: %s", out)
	}
	kubectl(t, k, "", "wait", "--for=condition=Established", "--timeout=20s", "crd/backups.junctors.example.com")
	obj := "apiVersion: junctors.example.com/v1\nkind: Backup\nmetadata: {name: %s}\nspec: %s\n"
	out = kubectl(t, k, fmt.Sprintf(obj, "ok", "{bucket: b, keep: 3}"), "apply", "-f", "-")
	if !strings.Contains(out, "backup.junctors.example.com/ok created") {
		t.Fatalf("apply a valid object: %s", out)
	}
	tests := []struct{ name, spec, want string }{
		{"none of oneOf", "{keep: 3}", `"spec" must validate one and only one schema (oneOf). Found none valid`},
		{"both of oneOf", "{bucket: b, volume: v, keep: 3}", `"spec" must validate one and only one schema (oneOf). Found 2 valid alternatives`},
		{"none of anyOf", "{bucket: b}", `"spec" must validate at least one schema (anyOf)`},
	}
	for _, tc := range tests {
		errOut := kubectlFails(t, k, fmt.Sprintf(obj, "bad", tc.spec), "apply", "-f", "-")
		if !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: %s", tc.name, errOut)
		}
	}
}

func crdYAML(plural, group, kind, schema string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.` + group + `
spec:
  group: ` + group + `
  scope: Namespaced
  names: {plural: ` + plural + `, kind: ` + kind + `}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: ` + schema + `
`
}
