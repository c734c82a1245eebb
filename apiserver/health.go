package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/storage"
)

// HealthCheck is one named check of /healthz, /livez or /readyz, as
// kube-apiserver's health checkers are. Check returns nil when healthy.
type HealthCheck struct {
	Name  string
	Check func(r *http.Request) error
}

// storeCheckTimeout bounds the store check, as kube-apiserver's
// --etcd-healthcheck-timeout default does.
const storeCheckTimeout = 2 * time.Second

// The built-in checks, under kube-apiserver's names:
//
//	ping           always healthy                             livez readyz healthz
//	etcd           every store answers (its current revision)  livez readyz healthz
//	informer-sync  every kind's watch cache has loaded         readyz healthz
//	shutdown       the server is not shutting down             readyz
//
// The etcd check asks whatever store the kinds use, memory included, so
// that probes and alerts keep kube-apiserver's names.
func (s *Server) healthChecks() (livez, readyz, healthz []HealthCheck) {
	ping := HealthCheck{Name: "ping", Check: func(*http.Request) error { return nil }}
	etcd := HealthCheck{Name: "etcd", Check: s.checkStores}
	sync := HealthCheck{Name: "informer-sync", Check: s.checkCaches}
	shutdown := HealthCheck{Name: "shutdown", Check: func(*http.Request) error {
		if s.shuttingDown.Load() {
			return errors.New("the server is shutting down")
		}
		return nil
	}}
	livez = append([]HealthCheck{ping, etcd}, s.opts.HealthChecks...)
	healthz = append(append([]HealthCheck{ping, etcd, sync}, s.opts.HealthChecks...), s.opts.ReadinessChecks...)
	readyz = append(append([]HealthCheck{ping, etcd, sync}, s.opts.HealthChecks...), s.opts.ReadinessChecks...)
	readyz = append(readyz, shutdown)
	return livez, readyz, healthz
}

// checkStores asks each distinct store for its revision.
func (s *Server) checkStores(r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), storeCheckTimeout)
	defer cancel()
	for _, st := range s.stores() {
		if _, err := st.Revision(ctx); err != nil {
			return err
		}
	}
	return nil
}

// stores lists the distinct stores of the registered kinds.
func (s *Server) stores() []storage.Interface {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []storage.Interface{s.opts.Storage}
	for _, res := range s.sortedResources() {
		if !containsStore(out, res.kind.Storage) {
			out = append(out, res.kind.Storage)
		}
	}
	return out
}

func containsStore(list []storage.Interface, st storage.Interface) bool {
	if !reflect.TypeOf(st).Comparable() {
		return false
	}
	for _, x := range list {
		if reflect.TypeOf(x) == reflect.TypeOf(st) && x == st {
			return true
		}
	}
	return false
}

// checkCaches fails while a kind's watch cache has not loaded its first
// list.
func (s *Server) checkCaches(*http.Request) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var pending []string
	for _, h := range s.resources {
		if !h.r.cache.Stats().Ready {
			pending = append(pending, h.r.gr.String())
		}
	}
	if len(pending) > 0 {
		sort.Strings(pending)
		return fmt.Errorf("watch caches not synced: %s", strings.Join(pending, ", "))
	}
	return nil
}

// serveHealth serves /healthz, /livez and /readyz and their per-check
// paths (/readyz/etcd) in kube-apiserver's format; false when path is
// none of them.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request, path string) bool {
	for _, e := range [...]struct {
		name   string
		checks []HealthCheck
	}{{"livez", s.livez}, {"readyz", s.readyz}, {"healthz", s.healthz}} {
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
func serveChecks(w http.ResponseWriter, r *http.Request, name string, checks []HealthCheck) {
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
func serveOneCheck(w http.ResponseWriter, r *http.Request, name string, checks []HealthCheck) {
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
