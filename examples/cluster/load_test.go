package cluster

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// call is one request of the write load and how it was answered.
type call struct {
	what       string // "create", "update" or "get"
	name       string
	server     int
	start, end time.Time
	code       int    // 0 when no answer came
	err        error  // transport or decoding error
	retryAfter string // the Retry-After header
	status     meta   // the body
}

func (c call) String() string {
	return fmt.Sprintf("%s %s via %d: %d %v (Retry-After %q, %s %s) in %v", c.what, c.name, c.server, c.code, c.err, c.retryAfter, c.status.Kind, c.status.Reason, c.end.Sub(c.start).Round(time.Millisecond))
}

// load writes Widgets through the servers from a few client goroutines,
// each pausing between requests: it creates a Widget through one server,
// reads it back through the other, and updates it. Names are never
// reused, and every write sends the resourceVersion of its last
// acknowledged one, so a correct server answers each with success or an
// error saying it is unavailable.
type load struct {
	servers []*kapiServer
	hc      *http.Client
	pause   time.Duration

	mu    sync.Mutex
	calls []call
	acked map[string]int64 // object → resourceVersion of its last acknowledged write
	stale []string         // reads that missed an acknowledged create (writers' own)
}

func newLoad(servers []*kapiServer, clientTimeout, pause time.Duration) *load {
	return &load{
		servers: servers,
		hc:      &http.Client{Timeout: clientTimeout},
		pause:   pause,
		acked:   make(map[string]int64),
	}
}

// run starts n writers and returns a function that stops them and waits.
func (l *load) run(n int) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() { l.writer(ctx, g) })
	}
	return func() {
		cancel()
		wg.Wait()
	}
}

func (l *load) writer(ctx context.Context, g int) {
	for i := 0; ctx.Err() == nil; i++ {
		name := fmt.Sprintf("g%d-%d", g, i)
		srv, other := (g+i)%2, (g+i+1)%2
		if c := l.do("create", name, srv, "POST", widgets, widget(name, "", 1)); c.code == http.StatusCreated {
			rv := c.status.Metadata.ResourceVersion
			if r := l.do("get", name, other, "GET", widgets+"/"+name, ""); r.err == nil && r.code < 500 && (r.code != http.StatusOK || r.status.rv() < c.status.rv()) {
				l.mu.Lock()
				l.stale = append(l.stale, fmt.Sprintf("%v after create at %s", r, rv))
				l.mu.Unlock()
			}
			l.do("update", name, other, "PUT", widgets+"/"+name, widget(name, rv, 2))
		}
		select {
		case <-ctx.Done():
		case <-time.After(l.pause):
		}
	}
}

// do sends one request and records it; acknowledged writes are noted.
func (l *load) do(what, name string, srv int, method, path, body string) call {
	c := call{what: what, name: name, server: srv, start: time.Now()}
	r, err := do(l.hc, method, l.servers[srv].url+path, body)
	c.end, c.err, c.code, c.retryAfter, c.status = time.Now(), err, r.code, r.retryAfter, r.body
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
	if err == nil && (c.code == http.StatusCreated || (c.code == http.StatusOK && what == "update")) {
		l.acked[name] = c.status.rv()
	}
	return c
}
