package kubectltest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

var built struct {
	once sync.Once
	path string
	err  error
}

// Binary returns the path of the kubectl binary, building it the first time
// it is called in this process (see the package documentation). It returns
// $KAPI_KUBECTL instead if that is set.
func Binary() (string, error) {
	built.once.Do(func() {
		built.path, built.err = locateOrBuild()
	})
	return built.path, built.err
}

func locateOrBuild() (string, error) {
	if p := os.Getenv("KAPI_KUBECTL"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("KAPI_KUBECTL: %w", err)
		}
		return p, nil
	}

	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot find the kubectltest source directory")
	}
	srcDir := filepath.Dir(file)
	mainDir := filepath.Join(srcDir, "testdata", "kubectl")
	// Read the inputs that decide what gets built, so that go test's result
	// cache, which notes the files a test reads, is invalidated when they
	// change.
	for _, f := range []string{
		filepath.Join(mainDir, "main.go"),
		filepath.Join(srcDir, "..", "..", "go.mod"),
		filepath.Join(srcDir, "..", "..", "go.sum"),
	} {
		if _, err := os.ReadFile(f); err != nil {
			return "", fmt.Errorf("kubectl sources: %w", err)
		}
	}

	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building kubectl needs the go command: %w", err)
	}

	// The binary must be named kubectl: client-go puts the program's name
	// in the User-Agent, and servers derive the default field manager of
	// writes from it.
	name := "kubectl"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	key := sha256.Sum256([]byte(srcDir + "\x00" + os.Getenv("GOFLAGS")))
	dir, shared := outputDir(hex.EncodeToString(key[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(dir, name)

	if shared {
		unlock, err := lockFile(filepath.Join(dir, "lock"))
		if err != nil {
			return "", err
		}
		defer unlock()
	}

	ldflags := "-s -w" + versionLDFlags(goTool, srcDir)
	start := time.Now()
	cmd := exec.Command(goTool, "build", "-ldflags="+ldflags, "-o", out, "./testdata/kubectl")
	cmd.Dir = srcDir
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build kubectl: %v\n%s", err, output.String())
	}
	if d := time.Since(start); d > 10*time.Second {
		fmt.Fprintf(os.Stderr, "kubectltest: built kubectl in %v\n", d.Round(time.Second))
	}
	return out, nil
}

// outputDir returns the directory to put the binary in, and whether that
// directory is shared with other processes.
func outputDir(key string) (string, bool) {
	if !canLock {
		if d, err := os.MkdirTemp("", "kapi-kubectltest-"); err == nil {
			return d, false
		}
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "kapi-kubectltest", key), true
}

// versionLDFlags returns linker flags that stamp the binary with the
// Kubernetes version matching the kubectl module (v0.X.Y is Kubernetes
// v1.X.Y), as release builds are, so that "kubectl version" reports it,
// kubectl's version-skew check sees a real client version, and the
// User-Agent reads "kubectl/v1.X.Y (os/arch) ...". It returns "" if the
// module version cannot be read.
func versionLDFlags(goTool, dir string) string {
	cmd := exec.Command(goTool, "list", "-m", "-f", "{{.Version}}", "k8s.io/kubectl")
	cmd.Dir = dir
	b, err := cmd.Output()
	if err != nil {
		return ""
	}
	v := strings.TrimSpace(string(b))
	rest, ok := strings.CutPrefix(v, "v0.")
	if !ok {
		return ""
	}
	minor, _, _ := strings.Cut(rest, ".")
	if minor == "" || strings.Trim(minor, "0123456789") != "" {
		return ""
	}
	var flags strings.Builder
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		fmt.Fprintf(&flags, " -X %s.gitVersion=v1.%s -X %s.gitMajor=1 -X %s.gitMinor=%s", pkg, rest, pkg, pkg, minor)
	}
	return flags.String()
}
