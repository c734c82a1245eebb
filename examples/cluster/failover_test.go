package cluster

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// Timing of TestFailover.
const (
	// requestTimeout bounds each etcd request of the kapi servers.
	requestTimeout = 2 * time.Second
	// hang is how long a request may take before the test calls it a
	// hang: the etcd request timeout, plus the watch cache's freshness
	// wait (3 s) for a consistent read, plus slack for -race on 2 cores.
	hang = 10 * time.Second
)

// phase is a moment of the test, for telling when errors came.
type phase struct {
	name string
	at   time.Time
}

// TestFailover runs two Widget servers on a three-member etcd cluster
// under a write load, stops a follower, then the leader (quorum is
// lost), then restarts them. Every request is answered within a bound,
// errors are 5xx Status answers with Retry-After (nothing was written)
// or 504 Timeout (a write that may still land, as kube-apiserver answers
// when etcd does not), no acknowledged write is lost, and each server's
// watchers end up with exactly the stored objects.
func TestFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an etcd cluster through an outage")
	}
	etcd := startCluster(t, 3)
	servers := []*kapiServer{
		startKapi(t, etcd.endpoints(), requestTimeout),
		startKapi(t, etcd.endpoints(), requestTimeout),
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var followers []*follower
	for _, s := range servers {
		f := newFollower(s.url)
		go f.run(ctx)
		f.waitFor(t, 1, 10*time.Second)
		followers = append(followers, f)
	}

	l := newLoad(servers, 2*hang, 20*time.Millisecond)
	stopLoad := l.run(4)
	var phases []phase
	mark := func(name string) { phases = append(phases, phase{name, time.Now()}) }
	mark("healthy")
	time.Sleep(time.Second)

	leader := etcd.waitLeader()
	follower := (leader + 1) % 3
	etcd.stop(follower)
	mark(fmt.Sprintf("follower m%d stopped", follower))
	time.Sleep(2 * time.Second)

	// A graceful stop: etcd waits for open watch streams (up to its 7 s
	// request timeout) and hands leadership over before the member leaves.
	leader = etcd.waitLeader()
	mark(fmt.Sprintf("stopping leader m%d", leader))
	etcd.stop(leader)
	mark(fmt.Sprintf("leader m%d stopped: no quorum", leader))
	time.Sleep(3 * time.Second)

	if err := etcd.start(leader); err != nil {
		t.Fatal(err)
	}
	mark(fmt.Sprintf("m%d back: quorum", leader))
	time.Sleep(2 * time.Second)
	if err := etcd.start(follower); err != nil {
		t.Fatal(err)
	}
	mark(fmt.Sprintf("m%d back: all members", follower))
	time.Sleep(time.Second)
	stopLoad()
	mark("end")

	checkCalls(t, l, phases)
	checkNothingLost(t, l, servers, followers)
}

// checkCalls checks how each request of the load was answered: within
// the hang bound, successfully or with a 5xx Status carrying Retry-After
// or saying Timeout,
// and with errors only for requests that overlapped the outage (from the
// start of the leader's stop until quorum was back). It logs the answers
// per phase, by the time each request ended.
func checkCalls(t *testing.T, l *load, phases []phase) {
	t.Helper()
	const stopping, noQuorum, quorum = 2, 3, 4
	outageFrom, outageTo := phases[stopping].at, phases[quorum].at
	type tally struct{ ok, unavailable int }
	counts := make([]tally, len(phases))
	var slowest time.Duration
	for _, c := range l.calls {
		p := 0
		for p+1 < len(phases) && !c.end.Before(phases[p+1].at) {
			p++
		}
		slowest = max(slowest, c.end.Sub(c.start))
		switch {
		case c.err != nil:
			t.Errorf("no answer: %v", c)
		case c.end.Sub(c.start) > hang:
			t.Errorf("answered after more than %v: %v", hang, c)
		case c.code < 300:
			counts[p].ok++
		case c.code >= 500 && c.status.Kind == "Status" && c.status.Code == c.code &&
			(retryAfter(c.retryAfter) || c.status.Reason == "Timeout"):
			counts[p].unavailable++
			if c.end.Before(outageFrom) || c.start.After(outageTo) {
				t.Errorf("failed outside the outage (%s +%v): %v", phases[p].name, c.end.Sub(phases[p].at).Round(time.Millisecond), c)
			}
		default:
			t.Errorf("unexpected answer: %v", c)
		}
	}
	for i, p := range phases[:len(phases)-1] {
		t.Logf("%-32s %5.1fs  %4d succeeded, %3d unavailable", p.name, phases[i+1].at.Sub(p.at).Seconds(), counts[i].ok, counts[i].unavailable)
	}
	t.Logf("%d requests, slowest %v", len(l.calls), slowest.Round(time.Millisecond))
	for _, s := range l.stale {
		t.Errorf("stale read: %s", s)
	}
	// The outage happened, and the load went on around it.
	if counts[stopping].unavailable+counts[noQuorum].unavailable == 0 {
		t.Errorf("no request failed while etcd lost quorum")
	}
	for _, p := range []int{0, 1, quorum, quorum + 1} {
		if counts[p].ok == 0 {
			t.Errorf("no request succeeded in phase %q", phases[p].name)
		}
	}
}

func retryAfter(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n > 0
}

// checkNothingLost checks that every acknowledged write is stored, that
// both servers list the same objects, and that each follower holds
// exactly those.
func checkNothingLost(t *testing.T, l *load, servers []*kapiServer, followers []*follower) {
	t.Helper()
	la := must(t, "GET", servers[0].url+widgets, "", http.StatusOK)
	lb := must(t, "GET", servers[1].url+widgets, "", http.StatusOK)
	stored := versions(la)
	if fmt.Sprint(stored) != fmt.Sprint(versions(lb)) {
		t.Fatalf("the servers list different objects:\n%v\n%v", stored, versions(lb))
	}
	for name, rv := range l.acked {
		if got, ok := stored[name]; !ok || got < rv {
			t.Errorf("acknowledged write of %s at %d lost: stored %d (present %v)", name, rv, got, ok)
		}
	}
	t.Logf("%d objects acknowledged, %d stored (the rest were written although their answer was an error)", len(l.acked), len(stored))
	for i, f := range followers {
		got := f.waitFor(t, max(la.rv(), lb.rv()), 30*time.Second)
		if fmt.Sprint(got) != fmt.Sprint(stored) {
			t.Errorf("watcher of server %d holds %d objects, %d stored", i, len(got), len(stored))
		}
		if p := f.problems(); p != nil {
			t.Errorf("watcher of server %d: %v", i, p)
		}
		f.mu.Lock()
		t.Logf("watcher of server %d: %d lists, %d watches", i, f.lists, f.watches)
		f.mu.Unlock()
	}
}
