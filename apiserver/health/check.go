package health

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Check is one named check of /healthz, /livez or /readyz, as
// kube-apiserver's health checkers are. Check returns nil when healthy.
type Check struct {
	Name  string
	Check func(r *http.Request) error
}

// Ping is the check that always passes, kube-apiserver's "ping".
func Ping() Check {
	return Check{Name: "ping", Check: func(*http.Request) error { return nil }}
}

// Handler serves /livez, /readyz and /healthz, each from its own list of
// checks, and their per-check paths (/readyz/etcd).
type Handler struct {
	livez, readyz, healthz []Check
}

// NewHandler returns a handler serving the three endpoints from these
// checks, run in the order given.
func NewHandler(livez, readyz, healthz []Check) *Handler {
	return &Handler{livez: livez, readyz: readyz, healthz: healthz}
}

// ServeHTTP serves the request's path, and 404 for a path that is none
// of the health endpoints.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.Serve(w, r, r.URL.Path) {
		http.NotFound(w, r)
	}
}

// Serve serves /healthz, /livez and /readyz and their per-check paths
// (/readyz/etcd) in kube-apiserver's format; false when path is none of
// them, and then nothing is written.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request, path string) bool {
	for _, e := range [...]struct {
		name   string
		checks []Check
	}{{"livez", h.livez}, {"readyz", h.readyz}, {"healthz", h.healthz}} {
		root := "/" + e.name
		switch {
		case path == root:
			serveChecks(w, r, e.name, e.checks)
			return true
		case strings.HasPrefix(path, root+"/"):
			serveOneCheck(w, r, strings.TrimPrefix(path, root+"/"), e.checks)
			return true
		}
	}
	return false
}

// serveChecks runs every check not excluded (?exclude=name, repeatable).
// The body is "ok" when all pass, the list of checks with ?verbose, and
// always the list, with 500, when one fails; a failure's reason is
// withheld, as the endpoint is public.
func serveChecks(w http.ResponseWriter, r *http.Request, name string, checks []Check) {
	q := r.URL.Query()
	excluded := make(map[string]bool)
	for _, e := range q["exclude"] {
		excluded[e] = false
	}
	var out bytes.Buffer
	failed := false
	for _, c := range checks {
		if _, ok := excluded[c.Name]; ok {
			excluded[c.Name] = true
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.Name)
			continue
		}
		if err := c.Check(r); err != nil {
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.Name)
			failed = true
			continue
		}
		fmt.Fprintf(&out, "[+]%s ok\n", c.Name)
	}
	var unknown []string
	for e, used := range excluded {
		if !used {
			unknown = append(unknown, fmt.Sprintf("%q", e))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		fmt.Fprintf(&out, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(unknown, ","))
	}
	setPlainHeaders(w)
	if failed {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "%s%s check failed\n", out.String(), name)
		return
	}
	if _, verbose := q["verbose"]; !verbose {
		_, _ = w.Write([]byte("ok"))
		return
	}
	_, _ = out.WriteTo(w)
	fmt.Fprintf(w, "%s check passed\n", name)
}

// serveOneCheck serves /readyz/<check>: "ok", or 500 with the reason.
func serveOneCheck(w http.ResponseWriter, r *http.Request, name string, checks []Check) {
	for _, c := range checks {
		if c.Name != name {
			continue
		}
		setPlainHeaders(w)
		if err := c.Check(r); err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "internal server error: %v\n", err)
			return
		}
		_, _ = w.Write([]byte("ok"))
		return
	}
	setPlainHeaders(w)
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, "404 page not found\n")
}

func setPlainHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}
