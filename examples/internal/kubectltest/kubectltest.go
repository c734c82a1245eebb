// Package kubectltest gives end-to-end tests a real kubectl, built from the
// k8s.io/kubectl Go module at the version pinned in examples/go.mod, and runs
// it against a server under test.
//
// # Approach: a real binary, built once, run as a subprocess
//
// The package builds the tiny main package in testdata/kubectl (the same
// program as upstream's cmd/kubectl: cli.RunNoErrOutput on
// cmd.NewDefaultKubectlCommand) with "go build" the first time a test
// process asks for it, and runs it with os/exec. It does not call kubectl's
// cobra command in-process, for these reasons:
//
//   - Fidelity. The subprocess is kubectl as users run it: its own flag
//     parsing, klog setup, os.Exit and exit codes (cmdutil.CheckErr exits 1
//     on errors), stdin, signals, and a fresh client, discovery cache and
//     global state on every run. In process, CheckErr's os.Exit has to be
//     swapped for a panic through the global cmdutil.BehaviorOnFatal, runs
//     must be serialized with a mutex (so tests cannot run kubectl in
//     parallel), and state that commands keep in package variables leaks
//     from one run into the next.
//   - Speed. kubectl and its dependencies (about 80 MB linked) stay out of
//     every test binary that uses this package, so those link in a second,
//     and under "go test -race" kubectl is not compiled a second time with
//     race instrumentation: it is built without -race, sharing the go build
//     cache with ordinary builds. (That is also why the main package lives
//     under testdata: "go test -race ./..." builds every package it matches,
//     even one without tests, and compiling kubectl with -race costs minutes.
//     deps.go, never compiled, keeps its imports in go.mod for "go mod tidy".)
//   - The per-run cost is small: starting the binary and running a command
//     such as "kubectl version --client" takes about 30 ms.
//
// The binary goes to a fixed path in the user cache directory,
// os.UserCacheDir()/kapi-kubectltest/<key>/kubectl, the key hashing this
// checkout's source directory and GOFLAGS. It is named kubectl because
// client-go puts the program's name in the User-Agent, from which servers
// derive the default field manager. A file lock beside it lets the test
// processes that "go test ./..." runs in parallel build it once between
// them. "go build -o" leaves an up-to-date binary alone, so later processes
// pay only for the staleness check, and a change to the pinned kubectl
// version rebuilds it. The build stamps the binary with the Kubernetes
// version of the kubectl module (v0.37.2 gives v1.37.2), as release builds
// are, so "kubectl version" and the User-Agent read like a real kubectl's.
//
// Measured on the 2-core development machine (kubectl v0.37.2, go1.26.8):
// a cold build, with empty module and build caches, takes about 95 s
// (downloading the modules is a few seconds of that); with the build cache
// warm but no binary, about 4 s (linking, with -ldflags=-s -w); with the
// binary up to date, about 0.3 s. Even the cold build fits well within go
// test's default 10-minute timeout.
//
// Set KAPI_KUBECTL to the path of a kubectl binary to use it instead of
// building one.
//
// # Isolation
//
// Each Kubectl has its own kubeconfig (written by package kubeconfig into
// t.TempDir()) and its own HOME, so the discovery and HTTP caches
// ($HOME/.kube/cache, the default --cache-dir) start empty for every test and
// never touch the developer's. KUBECONFIG points at the test's file,
// KUBERC=off turns off ~/.kube/kuberc, and KUBECTL_* feature-gate variables
// from the caller's environment are dropped (set them in Kubectl.Env).
package kubectltest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/internal/kubeconfig"
)

// DefaultTimeout bounds a Run whose context has no deadline.
const DefaultTimeout = 60 * time.Second

// Kubectl runs kubectl against one server. Make one with New.
type Kubectl struct {
	// Path is the kubectl binary.
	Path string
	// Kubeconfig is the kubeconfig file, passed as KUBECONFIG. Tests may
	// rewrite it (for example with kubeconfig.WriteConfig and a Token).
	Kubeconfig string
	// Home is HOME for kubectl: it holds the discovery and HTTP caches.
	Home string
	// Env holds extra KEY=VALUE entries, added last so they win.
	Env []string
	// Timeout bounds a Run whose context has no deadline; zero means
	// DefaultTimeout.
	Timeout time.Duration

	t testing.TB
}

// New returns a runner for the server at serverURL, building kubectl first
// if this test process has not yet. It writes a kubeconfig with
// kubeconfig.Write (cluster server serverURL, a context with
// namespace "default", a user with no credentials for http and
// kubeconfig.PlaceholderToken for https) into t.TempDir(). It fails the test
// if kubectl cannot be built.
func New(t testing.TB, serverURL string) *Kubectl {
	t.Helper()
	path, err := Binary()
	if err != nil {
		t.Fatalf("kubectltest: %v", err)
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatalf("kubectltest: %v", err)
	}
	kc := filepath.Join(dir, "kubeconfig")
	if err := kubeconfig.Write(kc, serverURL, "default"); err != nil {
		t.Fatalf("kubectltest: %v", err)
	}
	return &Kubectl{Path: path, Kubeconfig: kc, Home: home, t: t}
}

// Command returns an unstarted command running kubectl with args and the
// runner's environment, killed when ctx is done.
func (k *Kubectl) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, k.Path, args...)
	cmd.Env = k.environ()
	// cmd.Dir stays the test's working directory (its package directory),
	// so "-f testdata/x.yaml" works.
	// Do not let a grandchild holding stdout open keep Wait from returning.
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func (k *Kubectl) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "HOME", name == "KUBECONFIG", name == "KUBERC",
			strings.HasPrefix(name, "KUBECTL_"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+k.Home, "KUBECONFIG="+k.Kubeconfig, "KUBERC=off")
	return append(env, k.Env...)
}

// Run runs kubectl with args, feeding it stdin if that is not empty, and
// returns what it printed. A non-zero exit gives an error that unwraps to
// an *exec.ExitError. If ctx has no deadline, the run is bounded by
// k.Timeout; a run that times out is killed and its error wraps
// context.DeadlineExceeded.
func (k *Kubectl) Run(ctx context.Context, stdin string, args ...string) (stdout, stderr string, err error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, k.timeout())
		defer cancel()
	}
	cmd := k.Command(ctx, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		err = fmt.Errorf("kubectl %s: %w", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), err
}

// MustRun runs kubectl with args and no stdin, bounded by k.Timeout, and
// returns its stdout. It fails the test, showing both outputs, if kubectl
// exits non-zero.
func (k *Kubectl) MustRun(args ...string) string {
	k.t.Helper()
	stdout, stderr, err := k.Run(context.Background(), "", args...)
	if err != nil {
		k.t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	return stdout
}

func (k *Kubectl) timeout() time.Duration {
	if k.Timeout > 0 {
		return k.Timeout
	}
	return DefaultTimeout
}

// Start starts a long-running kubectl command, such as "get -w", and
// returns a handle from which its stdout can be read line by line. The
// process is killed when ctx is done, when Stop is called, or at the end of
// the test at the latest.
func (k *Kubectl) Start(ctx context.Context, args ...string) (*Process, error) {
	ctx, cancel := context.WithCancel(ctx)
	p := &Process{
		args:    args,
		cancel:  cancel,
		changed: make(chan struct{}),
		done:    make(chan struct{}),
	}
	p.cmd = k.Command(ctx, args...)
	p.cmd.Stdout = (*lineWriter)(p)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("kubectl %s: %w", strings.Join(args, " "), err)
	}
	go func() {
		err := p.cmd.Wait()
		p.mu.Lock()
		if len(p.partial) > 0 {
			p.lines = append(p.lines, string(p.partial))
			p.partial = nil
		}
		p.exited = true
		p.waitErr = err
		p.notifyLocked()
		p.mu.Unlock()
		close(p.done)
	}()
	if k.t != nil {
		k.t.Cleanup(func() { p.Stop() })
	}
	return p, nil
}

// Process is a running kubectl started by Start.
type Process struct {
	cmd    *exec.Cmd
	args   []string
	cancel context.CancelFunc
	done   chan struct{} // closed once the process has exited and its output is in

	stderr lockedBuffer

	mu      sync.Mutex
	lines   []string // complete stdout lines, without their "\n"
	partial []byte   // stdout after the last "\n"
	next    int      // index in lines of the line NextLine returns next
	changed chan struct{}
	exited  bool
	stopped bool
	waitErr error
}

// NextLine returns the next line kubectl printed to stdout, without its
// newline, waiting up to timeout for it. Once kubectl has exited and every
// line has been returned, it returns io.EOF (see Wait for the exit status).
func (p *Process) NextLine(timeout time.Duration) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		p.mu.Lock()
		if p.next < len(p.lines) {
			line := p.lines[p.next]
			p.next++
			p.mu.Unlock()
			return line, nil
		}
		if p.exited {
			p.mu.Unlock()
			return "", io.EOF
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			return "", fmt.Errorf("kubectl %s: no line on stdout within %v; stderr: %q",
				strings.Join(p.args, " "), timeout, p.Stderr())
		}
	}
}

// Stdout returns everything kubectl has printed to stdout so far.
func (p *Process) Stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, l := range p.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.Write(p.partial)
	return b.String()
}

// Stderr returns everything kubectl has printed to stderr so far.
func (p *Process) Stderr() string { return p.stderr.String() }

// Wait waits for kubectl to exit by itself and returns its exit error, as
// exec.Cmd.Wait does.
func (p *Process) Wait() error {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitErr
}

// Stop kills kubectl if it is still running and waits for it to exit. It
// returns nil if kubectl was running until Stop killed it, and otherwise the
// error it exited with. It is safe to call more than once.
func (p *Process) Stop() error {
	p.mu.Lock()
	if !p.exited {
		p.stopped = true
	}
	p.mu.Unlock()
	p.cancel()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil
	}
	return p.waitErr
}

func (p *Process) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// lineWriter is the Process seen as kubectl's stdout.
type lineWriter Process

func (w *lineWriter) Write(b []byte) (int, error) {
	p := (*Process)(w)
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(b)
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		line := append(p.partial, b[:i]...)
		p.partial = nil
		p.lines = append(p.lines, strings.TrimSuffix(string(line), "\r"))
		b = b[i+1:]
	}
	p.partial = append(p.partial, b...)
	p.notifyLocked()
	return n, nil
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
