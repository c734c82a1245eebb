package apiserver_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// TestInFlightLimit: with one mutating seat taken and the user's queue
// (one request) full, the next write gets 429 TooManyRequests with
// Retry-After at once; the queued one gets it after the queue timeout.
// Reads have their own limit and are still served; system:masters is
// exempt; once the seat is free, writes go through again.
func TestInFlightLimit(t *testing.T) {
	g := newGate()
	defer g.open()
	_, ts := startOps(t, apiserver.Options{
		MaxRequestsInFlight: 10, MaxMutatingRequestsInFlight: 1,
		InFlightQueueLength: 1, InFlightQueueTimeout: 300 * time.Millisecond,
		MutatingAdmission: []apiserver.AdmissionFunc{g.admit},
	})
	held := make(chan response, 1)
	go func() { held <- post(t, ts, "", "block-1", "alice") }()
	g.waitEntered(t, 1)

	queued := make(chan response, 1)
	start := time.Now()
	go func() { queued <- post(t, ts, "", "w-queued", "alice") }()
	time.Sleep(50 * time.Millisecond) // let it queue; if it has not, the next one queues instead

	over := post(t, ts, "", "w-over", "alice")
	checkTooMany(t, over)
	q := <-queued
	checkTooMany(t, q)
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Errorf("queued request rejected after %v, before the queue timeout", waited)
	}

	if r := do(t, ts, "GET", widgetsPath, "", ""); r.code != http.StatusOK {
		t.Errorf("read while writes are saturated: %d %s", r.code, r.body)
	}
	if r := post(t, ts, "", "w-admin", "root", "system:masters"); r.code != http.StatusCreated {
		t.Errorf("system:masters while saturated: %d %s", r.code, r.body)
	}
	g.open()
	if r := <-held; r.code != http.StatusCreated {
		t.Errorf("held write: %d %s", r.code, r.body)
	}
	if r := post(t, ts, "", "w-after", "alice"); r.code != http.StatusCreated {
		t.Errorf("write after the seat was freed: %d %s", r.code, r.body)
	}
}

func checkTooMany(t *testing.T, r response) {
	t.Helper()
	if r.code != http.StatusTooManyRequests {
		t.Fatalf("code %d, want 429: %s", r.code, r.body)
	}
	if got := r.header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1", got)
	}
	st := decodeStatus(t, r)
	if st.Reason != meta.StatusReasonTooManyRequests || st.Message != "Too many requests, please try again later." ||
		st.Details == nil || st.Details.RetryAfterSeconds != 1 {
		t.Errorf("Status %+v", st)
	}
}

// TestInFlightFairness: a user who floods the server fills only their own
// queue, and its excess gets 429; another user's write, sent after the
// flood, is served at the next turn, ahead of the flood's backlog.
func TestInFlightFairness(t *testing.T) {
	g := newGate()
	defer g.open()
	_, ts := startOps(t, apiserver.Options{
		MaxMutatingRequestsInFlight: 1, InFlightQueueLength: 3, InFlightQueueTimeout: 10 * time.Second,
		MutatingAdmission: []apiserver.AdmissionFunc{g.admit},
	})
	results := make(chan response, 20)
	go func() { results <- post(t, ts, "", "block-0", "flood") }()
	g.waitEntered(t, 1)
	for i := range 10 {
		go func() { results <- post(t, ts, "", "block-"+string(rune('a'+i)), "flood") }()
	}
	rejected := 0
	for range 7 { // 3 queue, 7 are turned away
		if r := <-results; r.code == http.StatusTooManyRequests {
			rejected++
		}
	}
	if rejected != 7 {
		t.Fatalf("%d of the flood's 10 extra writes rejected, want 7", rejected)
	}
	polite := make(chan response, 1)
	go func() { polite <- post(t, ts, "", "polite", "bob") }()
	time.Sleep(50 * time.Millisecond)
	g.open()
	if r := <-polite; r.code != http.StatusCreated {
		t.Errorf("polite user's write: %d %s", r.code, r.body)
	}
	for range 4 {
		if r := <-results; r.code != http.StatusCreated {
			t.Errorf("flood's queued write: %d %s", r.code, r.body)
		}
	}
	// One seat: admission order is seat order. block-0 held it, then the
	// flood's first queued write, then the polite user's turn.
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.order) != 5 || g.order[2] != "polite" {
		t.Errorf("admitted in order %v; want the polite write third", g.order)
	}
}
