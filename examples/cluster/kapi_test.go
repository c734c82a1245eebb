package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/widgets/server"
)

const widgets = "/apis/stable.example.com/v1/namespaces/default/widgets"

// kapiServer is one Widget server with --storage etcd on an httptest
// server.
type kapiServer struct {
	url string
}

// startKapi starts a Widget server on the etcd at endpoints; it stops in
// t's cleanup, before the etcd members (cleanups run last first).
func startKapi(t *testing.T, endpoints []string, requestTimeout time.Duration) *kapiServer {
	t.Helper()
	srv, err := server.Open(server.Config{Storage: server.StorageEtcd, EtcdEndpoints: endpoints, EtcdRequestTimeout: requestTimeout})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		srv.Close()
	})
	return &kapiServer{url: ts.URL}
}

// meta is what the tests read of an object, a list or a Status.
type meta struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Items  []meta `json:"items"`
	Code   int    `json:"code"`
	Reason string `json:"reason"`
}

func (m meta) rv() int64 {
	n, _ := strconv.ParseInt(m.Metadata.ResourceVersion, 10, 64)
	return n
}

// reply is one answered request.
type reply struct {
	code       int
	retryAfter string
	body       meta
	raw        []byte
}

// do sends a JSON request with client hc and decodes the answer.
func do(hc *http.Client, method, url, body string) (reply, error) {
	var rd io.Reader = http.NoBody
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Accept", "application/json")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	r := reply{code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	if r.raw, err = io.ReadAll(resp.Body); err != nil {
		return r, err
	}
	if err := json.Unmarshal(r.raw, &r.body); err != nil {
		return r, fmt.Errorf("%s %s: %d %q: %v", method, url, r.code, r.raw, err)
	}
	return r, nil
}

// must sends a request and fails t unless the answer has code want.
func must(t *testing.T, method, url, body string, want int) meta {
	t.Helper()
	r, err := do(http.DefaultClient, method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.code != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, url, r.code, want, r.raw)
	}
	return r.body
}

func widget(name, rv string, replicas int) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"resourceVersion":%q},"spec":{"replicas":%d,"color":"blue"}}`, name, rv, replicas)
}

// versions maps the items of a list to their resourceVersions.
func versions(list meta) map[string]int64 {
	m := make(map[string]int64, len(list.Items))
	for _, o := range list.Items {
		m[o.Metadata.Name] = o.rv()
	}
	return m
}

// follower keeps a copy of the Widgets of one server the way client-go's
// reflector does: list, then watch from the list's resourceVersion with
// bookmarks; when a watch ends, watch again from the last resourceVersion
// seen; on 410 Gone, list again.
//
// A follower of several servers moves to the next one each time a list or
// watch ends, as a client behind a load balancer does, resuming from its
// last resourceVersion there.
type follower struct {
	bases []string
	turn  int // bases[turn%len(bases)] is the server of the next round
	hc    *http.Client

	mu      sync.Mutex
	objs    map[string]int64
	rv      int64
	lists   int      // lists made (the first, and one per 410)
	watches int      // watches opened
	faults  []string // events out of order or unreadable
}

func newFollower(bases ...string) *follower {
	return &follower{bases: bases, hc: &http.Client{}}
}

// run follows until ctx ends.
func (f *follower) run(ctx context.Context) {
	for ctx.Err() == nil {
		f.mu.Lock()
		rv, base := f.rv, f.bases[f.turn%len(f.bases)]
		f.turn++
		f.mu.Unlock()
		var err error
		if rv == 0 {
			err = f.list(ctx, base)
		} else {
			err = f.watch(ctx, base, rv)
		}
		if err != nil {
			select { // the server is unavailable: back off a little
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

func (f *follower) list(ctx context.Context, base string) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", base+widgets, nil)
	resp, err := f.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var l meta
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("list: %d", resp.StatusCode)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.objs, f.rv = versions(l), l.rv()
	f.lists++
	return nil
}

// watchEvent is one line of a JSON watch stream.
type watchEvent struct {
	Type   string `json:"type"`
	Object meta   `json:"object"`
}

func (f *follower) watch(ctx context.Context, base string, rv int64) error {
	url := fmt.Sprintf("%s%s?watch=1&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=%d", base, widgets, rv)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := f.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	f.mu.Lock()
	f.watches++
	f.mu.Unlock()
	if resp.StatusCode == http.StatusGone {
		f.expire()
		return nil
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("watch: %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev watchEvent
		if err := json.Unmarshal(bytes.TrimSpace(sc.Bytes()), &ev); err != nil {
			f.fault("undecodable event %q: %v", sc.Bytes(), err)
			return err
		}
		if ev.Type == "ERROR" {
			if ev.Object.Code == http.StatusGone {
				f.expire()
				return nil
			}
			return fmt.Errorf("watch error: %+v", ev.Object)
		}
		f.apply(ev)
	}
	return sc.Err()
}

// expire forgets the resourceVersion, so that the next round lists.
func (f *follower) expire() {
	f.mu.Lock()
	f.rv = 0
	f.mu.Unlock()
}

func (f *follower) apply(ev watchEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rv := ev.Object.rv()
	if rv < f.rv || (rv == f.rv && ev.Type != "BOOKMARK") {
		f.faults = append(f.faults, fmt.Sprintf("%s %s at %d after %d", ev.Type, ev.Object.Metadata.Name, rv, f.rv))
	}
	f.rv = rv
	switch ev.Type {
	case "ADDED", "MODIFIED":
		f.objs[ev.Object.Metadata.Name] = rv
	case "DELETED":
		delete(f.objs, ev.Object.Metadata.Name)
	}
}

// problems returns the faults seen so far.
func (f *follower) problems() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.faults)
}

func (f *follower) fault(format string, args ...any) {
	f.mu.Lock()
	f.faults = append(f.faults, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

// waitFor waits until the follower has reached rv, then returns its
// objects.
func (f *follower) waitFor(t *testing.T, rv int64, within time.Duration) map[string]int64 {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		f.mu.Lock()
		cur, objs := f.rv, maps.Clone(f.objs)
		f.mu.Unlock()
		if cur >= rv {
			return objs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch of %s is at resourceVersion %d after %v, want %d", strings.Join(f.bases, ", "), cur, within, rv)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
