package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// serveEnv, set in a child process of the test binary, makes it a Widget
// server: TestMain runs server.Run on the arguments after "--" until
// SIGTERM or SIGINT, as the widgets command does. The test binary serves
// rather than a separately built widgets binary so that the test needs
// no build of its own (minutes on a cold, slow machine) and the servers
// run with the test's -race.
const serveEnv = "KAPI_CLUSTER_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		os.Exit(serve())
	}
	os.Exit(m.Run())
}

// serve is the widgets command's main.
func serve() int {
	args := os.Args[1:]
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := server.Run(ctx, args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "widgets:", err)
		return 1
	}
	return 0
}

// kapiProcess is a Widget server run as a child process on a fixed
// address, which can be stopped with SIGTERM and started again there.
type kapiProcess struct {
	t    *testing.T
	args []string
	url  string

	cmd    *exec.Cmd
	out    *lockedBuffer
	exited chan struct{} // closed when cmd has exited
	err    error         // cmd's exit error, once exited is closed
}

// lockedBuffer is a child's output, written by exec's copying goroutine
// and read by the test.
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

// startProcess starts a Widget server on etcd, with the shutdown delay,
// and waits until it is ready. It is killed in t's cleanup if still
// running.
func startProcess(t *testing.T, endpoints []string, delay time.Duration) *kapiProcess {
	t.Helper()
	addr := freePort(t).Host
	p := &kapiProcess{t: t, url: "http://" + addr, args: []string{
		"--addr", addr, "--storage", "etcd", "--etcd-endpoints", joinComma(endpoints),
		"--shutdown-delay-duration", delay.String(),
		"--kubeconfig", filepath.Join(t.TempDir(), "kubeconfig"),
	}}
	t.Cleanup(func() {
		if p.cmd != nil && !p.hasExited() {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	p.start()
	return p
}

func joinComma(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(x)
	}
	return b.String()
}

// start runs the server (again) and waits until /readyz answers 200.
func (p *kapiProcess) start() {
	p.t.Helper()
	p.cmd = exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, p.args...)...)
	p.cmd.Env = append(os.Environ(), serveEnv+"=1")
	p.out = &lockedBuffer{}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) {
		err := cmd.Wait()
		p.err = err
		close(exited)
	}(p.cmd, p.exited)
	deadline := time.Now().Add(time.Minute)
	for {
		if p.hasExited() {
			p.t.Fatalf("server %s exited while starting: %v\n%s", p.url, p.err, p.out)
		}
		if ready(p.url) {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("server %s not ready after a minute:\n%s", p.url, p.out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ready reports whether the server at url answers /readyz with 200.
func ready(url string) bool {
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (p *kapiProcess) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *kapiProcess) stop() {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		p.t.Fatalf("server %s still running a minute after SIGTERM:\n%s", p.url, p.out)
	}
	if p.err != nil {
		p.t.Fatalf("server %s exited with %v after SIGTERM:\n%s", p.url, p.err, p.out)
	}
}

// window is a span of time: a server's stop, from SIGTERM to its exit.
type window struct{ from, to time.Time }

func (w window) overlaps(c call) bool { return !c.end.Before(w.from) && !c.start.After(w.to) }

// TestRollingRestart runs two Widget server processes on a three-member
// etcd cluster under a write load, with watchers that move between the
// servers, and restarts each server in turn with SIGTERM (a graceful
// shutdown with a shutdown delay). Every acknowledged write is stored,
// every answered request is a success or an unavailable Status with
// Retry-After, and every watcher ends with exactly the stored objects.
func TestRollingRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an etcd cluster and two server processes")
	}
	etcd := startCluster(t, 3)
	procs := []*kapiProcess{
		startProcess(t, etcd.endpoints(), time.Second),
		startProcess(t, etcd.endpoints(), time.Second),
	}
	servers := []*kapiServer{{url: procs[0].url}, {url: procs[1].url}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var followers []*follower
	for i := range servers {
		f := newFollower(servers[i].url, servers[1-i].url)
		go f.run(ctx)
		f.waitFor(t, 1, 30*time.Second)
		followers = append(followers, f)
	}

	l := newLoad(servers, time.Minute, 20*time.Millisecond)
	stopLoad := l.run(4)
	waitAcked(t, l, 10)
	var stops []window
	for _, p := range procs {
		from := time.Now()
		p.stop()
		stops = append(stops, window{from, time.Now()})
		t.Logf("server %s stopped in %v", p.url, time.Since(from).Round(time.Millisecond))
		waitAcked(t, l, 5) // the other server takes the load
		p.start()
		t.Logf("server %s ready again", p.url)
		waitAcked(t, l, 10)
	}
	stopLoad()

	checkRestartCalls(t, l, stops)
	checkNothingLost(t, l, servers, followers)
}

// waitAcked waits until n more writes have been acknowledged.
func waitAcked(t *testing.T, l *load, n int) {
	t.Helper()
	count := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.acked)
	}
	want := count() + n
	deadline := time.Now().Add(30 * time.Second)
	for count() < want {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes acknowledged after 30s, want %d", count(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkRestartCalls checks the answers of the load: a request succeeded,
// or was told the server is unavailable (5xx Status with Retry-After), or
// got no answer because its server was down (connection refused) or, in
// a server's stop, because the server closed the kept-alive connection
// the request was sent on as it was going; reads after an acknowledged
// create found it.
func checkRestartCalls(t *testing.T, l *load, stops []window) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var ok, unavailable, refused, dropped int
	for _, c := range l.calls {
		switch {
		case c.err != nil && errors.Is(c.err, syscall.ECONNREFUSED):
			refused++
		case c.err != nil && slices.ContainsFunc(stops, func(w window) bool { return w.overlaps(c) }):
			dropped++
			t.Logf("no answer during a stop: %v", c)
		case c.err != nil:
			t.Errorf("no answer: %v", c)
		case c.code < 300:
			ok++
		case c.code >= 500 && c.status.Kind == "Status" && c.status.Code == c.code && retryAfter(c.retryAfter):
			unavailable++
		default:
			t.Errorf("unexpected answer: %v", c)
		}
	}
	t.Logf("%d requests: %d succeeded, %d unavailable, %d refused (server down), %d dropped by a stopping server",
		len(l.calls), ok, unavailable, refused, dropped)
	for _, s := range l.stale {
		t.Errorf("stale read: %s", s)
	}
}
