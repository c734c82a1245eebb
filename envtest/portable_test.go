package envtest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSampleSuiteIsEnvtests type-checks the sample controller's suite
// with its one envtest import pointed at controller-runtime's envtest:
// the suite that runs here against kapi is, but for that line, a suite
// for controller-runtime's envtest. (Running it there needs the
// kube-apiserver and etcd binaries, which this test does not fetch.)
func TestSampleSuiteIsEnvtests(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles controller-runtime's envtest")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	suite, err := filepath.Abs(filepath.Join("internal", "sample", "controller", "suite_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(suite)
	if err != nil {
		t.Fatal(err)
	}
	const ours, theirs = `"github.com/kapi-dev/kapi/envtest"`, `"sigs.k8s.io/controller-runtime/pkg/envtest"`
	if n := strings.Count(string(src), ours); n != 1 {
		t.Fatalf("the suite imports %s %d times, want once", ours, n)
	}
	dir := t.TempDir()
	upstream := filepath.Join(dir, "suite_test.go")
	if err := os.WriteFile(upstream, []byte(strings.Replace(string(src), ours, theirs, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {suite: upstream}})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "vet", "-overlay="+overlayFile, "./internal/sample/controller")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the suite does not build against controller-runtime's envtest: %v\n%s", err, out)
	}
}
