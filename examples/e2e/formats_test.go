package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// TestKubectlCustomResourceFormats applies a definition whose fields
// have string formats, then objects whose values are and are not of
// them: kubectl shows kube-apiserver's causes for the ones refused.
func TestKubectlCustomResourceFormats(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)
	manifest := crdYAML("formats-probes", "formats.example.com", "Probe",
		`{type: object, properties: {spec: {type: object, properties: {`+
			`when: {type: string, format: date-time}, owner: {type: string, format: email}, `+
			`addr: {type: string, format: ipv4}, id: {type: string, format: uuid, maxLength: 5}, `+
			`name: {type: string, format: k8s-short-name}, every: {type: string, format: duration}, `+
			`size: {x-kubernetes-int-or-string: true, format: byte}, hosts: {type: array, items: {type: string, format: hostname}}}}}}`)
	kubectl(t, k, manifest, "apply", "-f", "-")
	kubectl(t, k, "", "wait", "--for=condition=Established", "--timeout=20s", "crd/formats-probes.formats.example.com")
	obj := "apiVersion: formats.example.com/v1\nkind: Probe\nmetadata: {name: %s}\nspec: %s\n"
	good := `{when: "2026-01-02T03:04:05.5+01:00", owner: "Ops <ops@example.com>", addr: "010.0.0.1", ` +
		`name: web-1, every: "1 hour and 5 mins", size: 5, hosts: [example.com, "日本.jp"]}`
	if out := kubectl(t, k, fmt.Sprintf(obj, "ok", good), "apply", "-f", "-"); !strings.Contains(out, "probe.formats.example.com/ok created") {
		t.Fatalf("apply a valid object: %s", out)
	}
	tests := []struct {
		spec string
		want []string
	}{
		{`{when: "2026-01-02 03:04:05Z"}`, []string{
			`spec.when: Invalid value: "2026-01-02 03:04:05Z": spec.when in body must be of type date-time: "2026-01-02 03:04:05Z"`}},
		{`{owner: "ops", addr: "256.0.0.1"}`, []string{
			`* spec.addr: Invalid value: "256.0.0.1": spec.addr in body must be of type ipv4: "256.0.0.1"`,
			`* spec.owner: Invalid value: "ops": spec.owner in body must be of type email: "ops"`}},
		{`{id: "123e4567-e89b-12d3-a456-42661417400"}`, []string{
			`* spec.id: Too long: may not be more than 5 bytes`,
			`* spec.id: Invalid value: "123e4567-e89b-12d3-a456-42661417400": spec.id in body must be of type uuid: "123e4567-e89b-12d3-a456-42661417400"`}},
		{`{name: Web, every: "soon", size: "x", hosts: ["-a.com"]}`, []string{
			`* spec.every: Invalid value: "soon": spec.every in body must be of type duration: "soon"`,
			`* spec.hosts[0]: Invalid value: "-a.com": spec.hosts[0] in body must be of type hostname: "-a.com"`,
			`* spec.name: Invalid value: "Web": spec.name in body must be of type k8s-short-name: "Web"`,
			`* spec.size: Invalid value: "x": spec.size in body must be of type byte: "x"`}},
	}
	for _, tc := range tests {
		errOut := kubectlFails(t, k, fmt.Sprintf(obj, "bad", tc.spec), "apply", "-f", "-")
		if !strings.Contains(errOut, strings.Join(tc.want, "\n")) {
			t.Errorf("%s:\n got %s\nwant %s", tc.spec, errOut, strings.Join(tc.want, "\n"))
		}
	}
}
