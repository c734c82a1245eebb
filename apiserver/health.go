package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/apiserver/health"
	"github.com/kapi-dev/kapi/storage"
)

// HealthCheck is one named check of /healthz, /livez or /readyz, as
// kube-apiserver's health checkers are. Check returns nil when healthy.
type HealthCheck = health.Check

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
func (s *server) healthChecks() (livez, readyz, healthz []HealthCheck) {
	ping := health.Ping()
	etcd := HealthCheck{Name: "etcd", Check: s.checkStores}
	sync := HealthCheck{Name: "informer-sync", Check: s.kinds.checkCaches}
	shutdown := s.shutdown.Check()
	livez = append([]HealthCheck{ping, etcd}, s.opts.HealthChecks...)
	healthz = append(append([]HealthCheck{ping, etcd, sync}, s.opts.HealthChecks...), s.opts.ReadinessChecks...)
	readyz = append(append([]HealthCheck{ping, etcd, sync}, s.opts.HealthChecks...), s.opts.ReadinessChecks...)
	readyz = append(readyz, shutdown)
	return livez, readyz, healthz
}

// checkStores asks each distinct store for its revision.
func (s *server) checkStores(r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), storeCheckTimeout)
	defer cancel()
	for _, st := range s.kinds.stores() {
		if _, err := st.Revision(ctx); err != nil {
			return err
		}
	}
	return nil
}

// stores lists the distinct stores of the registered kinds.
func (s *catalog) stores() []storage.Interface {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []storage.Interface{s.opts.Storage}
	for _, res := range s.sortedResources() {
		if !containsStore(out, res.Kind.Storage) {
			out = append(out, res.Kind.Storage)
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
func (s *catalog) checkCaches(*http.Request) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var pending []string
	for _, h := range s.resources {
		if !h.Resource.Cache.Stats().Ready {
			pending = append(pending, h.Resource.GroupResource.String())
		}
	}
	if len(pending) > 0 {
		sort.Strings(pending)
		return fmt.Errorf("watch caches not synced: %s", strings.Join(pending, ", "))
	}
	return nil
}

// serveHealth serves /healthz, /livez and /readyz and their per-check
// paths (/readyz/etcd); false when path is none of them.
func (s *server) serveHealth(w http.ResponseWriter, r *http.Request, path string) bool {
	return s.health.Serve(w, r, path)
}
