package e2e

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// outside records the requests that reached the host's own handler
// instead of the API server mounted under the prefix.
type outside struct {
	mu    sync.Mutex
	paths []string
}

func (o *outside) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.paths = append(o.paths, r.Method+" "+r.URL.RequestURI())
	o.mu.Unlock()
	http.Error(w, "not the API", http.StatusTeapot)
}

func (o *outside) seen() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.paths...)
}

// TestKubectlUnderPathPrefix drives kubectl against the Widget server
// mounted under /kapi/ with http.StripPrefix, its kubeconfig's server
// https://127.0.0.1:PORT/kapi: discovery, explain (the OpenAPI v3 index
// and documents), client-side and server-side apply, get, scale and watch
// all work, and no request leaves the prefix.
func TestKubectlUnderPathPrefix(t *testing.T) {
	h, err := server.NewHandler(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	host := &outside{}
	mux := http.NewServeMux()
	mux.Handle("/", host)
	mux.Handle("/kapi/", http.StripPrefix("/kapi", h))
	ts := httptest.NewTLSServer(mux)
	t.Cleanup(ts.Close)
	k := kubectltest.New(t, ts.URL+"/kapi")

	out := kubectl(t, k, "", "api-resources", "--api-group=stable.example.com", "--no-headers")
	if f := strings.Fields(firstLineWith(out, "widgets")); len(f) != 5 || f[1] != "wd" || f[4] != "Widget" {
		t.Errorf("api-resources:\n%s", out)
	}
	out = kubectl(t, k, "", "explain", "widgets.spec")
	for _, want := range []string{"KIND:       Widget", "replicas", "Number of desired replicas."} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}

	for _, step := range []struct{ color, want string }{{"red", "created"}, {"blue", "configured"}, {"blue", "unchanged"}} {
		out = kubectl(t, k, widgetManifest("one", step.color), "apply", "-f", "-")
		if !strings.Contains(out, "widget.stable.example.com/one "+step.want) {
			t.Errorf("apply %s: %s", step.color, out)
		}
	}
	out = kubectl(t, k, widgetManifest("two", "green"), "apply", "--server-side", "-f", "-")
	if !strings.Contains(out, "widget.stable.example.com/two serverside-applied") {
		t.Errorf("apply --server-side: %s", out)
	}
	bad := strings.Replace(widgetManifest("bad", "red"), "  color: red", "  colour: red", 1)
	if errOut := kubectlFails(t, k, bad, "apply", "-f", "-"); !strings.Contains(errOut, `unknown field "spec.colour"`) {
		t.Errorf("strict validation: %s", errOut)
	}
	kubectl(t, k, "", "scale", "wd", "one", "--replicas=3")

	out = kubectl(t, k, "", "get", "wd", "--no-headers")
	if f := strings.Fields(firstLineWith(out, "one")); len(f) < 3 || f[1] != "blue" || f[2] != "3" {
		t.Errorf("get wd:\n%s", out)
	}
	if f := strings.Fields(firstLineWith(out, "two")); len(f) < 2 || f[1] != "green" {
		t.Errorf("get wd:\n%s", out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := k.Start(ctx, "get", "wd", "-w", "--watch-only", "-o", "name", "--request-timeout=30s")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	// The watch starts after kubectl's list; keep writing until it sees
	// a change, so the test does not depend on when it started.
	for i := 0; ; i++ {
		kubectl(t, k, "", "label", "wd", "two", "--overwrite", "round="+strings.Repeat("x", i%5+1))
		line, err := p.NextLine(2 * time.Second)
		if err == nil {
			if strings.TrimSpace(line) != "widget.stable.example.com/two" {
				t.Errorf("watch saw %q", line)
			}
			break
		}
		if errors.Is(err, io.EOF) || ctx.Err() != nil {
			t.Fatalf("get -w saw no change: %v; stderr %s", err, p.Stderr())
		}
	}

	if paths := host.seen(); len(paths) > 0 {
		t.Errorf("requests left the prefix: %v", paths)
	}
}

// firstLineWith returns the first line of out whose first field is name.
func firstLineWith(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name {
			return line
		}
	}
	return ""
}
