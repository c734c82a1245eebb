package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// TestShutdown follows the shutdown sequence: /readyz fails at once while
// requests are still served for the delay; then an open watch ends
// cleanly after the events it was sent, new requests get 503 with
// Retry-After, a write in flight completes and is stored, and Shutdown
// returns once it has.
func TestShutdown(t *testing.T) {
	store := memory.New(memory.Options{})
	g := newGate()
	defer g.open()
	srv, ts := startOps(t, apiserver.Options{Storage: store, ShutdownDelayDuration: 500 * time.Millisecond,
		MutatingAdmission: []apiserver.AdmissionFunc{g.admit}})
	waitReady(t, ts.URL)

	resp, err := http.Get(ts.URL + widgetsPath + "?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 10)
	streamEnd := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var ev struct {
				Type   string
				Object struct{ Metadata struct{ Name string } }
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				streamEnd <- err
				return
			}
			events <- ev.Type + " " + ev.Object.Metadata.Name
		}
		streamEnd <- sc.Err() // nil: a clean end of the stream
	}()
	if r := post(t, ts, "", "before", ""); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	if ev := <-events; ev != "ADDED before" {
		t.Fatalf("watch event %q", ev)
	}
	inflight := make(chan response, 1)
	go func() { inflight <- post(t, ts, "", "block-inflight", "") }()
	g.waitEntered(t, 1)

	shutdown := make(chan error, 1)
	go func() { shutdown <- srv.Shutdown(context.Background()) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := do(t, ts, "GET", "/readyz", "", "")
		if r.code == http.StatusInternalServerError {
			if want := "[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n"; string(r.body) != want {
				t.Errorf("/readyz during shutdown: %q", r.body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/readyz never failed")
		}
	}
	if r := do(t, ts, "GET", widgetsPath, "", ""); r.code != http.StatusOK {
		t.Errorf("request during the shutdown delay: %d %s", r.code, r.body)
	}
	if r := post(t, ts, "", "during-delay", ""); r.code != http.StatusCreated {
		t.Errorf("write during the shutdown delay: %d %s", r.code, r.body)
	}
	if ev := <-events; ev != "ADDED during-delay" {
		t.Errorf("watch event %q", ev)
	}

	select {
	case err := <-streamEnd:
		if err != nil {
			t.Errorf("watch stream: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not end")
	}
	r := post(t, ts, "", "after", "")
	if st := decodeStatus(t, r); r.code != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" ||
		!r.close ||
		st.Reason != "ServiceUnavailable" {
		t.Errorf("request after the delay: %d Retry-After %q close %v %s", r.code, r.header.Get("Retry-After"), r.close, r.body)
	}
	checkGet(t, ts.URL+"/livez", 200, "ok") // probes are answered throughout

	select {
	case err := <-shutdown:
		t.Fatalf("Shutdown returned with a write in flight: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	g.open()
	if r := <-inflight; r.code != http.StatusCreated {
		t.Errorf("write in flight: %d %s", r.code, r.body)
	}
	if err := <-shutdown; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	for _, name := range []string{"before", "during-delay", "block-inflight"} {
		if got, err := store.Get(context.Background(), "/stable.example.com/widgets/default/"+name, storage.GetOptions{}); err != nil || got.KV == nil {
			t.Errorf("%s not stored: %v", name, err)
		}
	}
}
