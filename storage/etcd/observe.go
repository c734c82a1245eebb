package etcd

import (
	"strings"
	"time"
)

// Observer receives the duration of every etcd request the store makes
// (watches aside), for a host's metrics: kube-apiserver's
// etcd_request_duration_seconds. Package
// github.com/kapi-dev/kapi/metrics/prometheus implements it.
//
// operation is kube-apiserver's name of the request: "get", "list",
// "create", "update", "delete", "getCurrentResourceVersion" or
// "compact". group and resource come from the storage key, whose first
// two segments kapi's server sets to the resource's group ("core" for the
// core group, reported as "") and resource; both are "" for other keys.
// err is the request's error, nil on success (a failed comparison is a
// success).
type Observer interface {
	ObserveEtcdRequest(operation, group, resource string, d time.Duration, err error)
}

// observe reports one request begun at start, if the store has an
// observer.
func (s *Store) observe(operation, key string, start time.Time, err error) {
	if s.observer == nil {
		return
	}
	group, resource := keyResource(key)
	s.observer.ObserveEtcdRequest(operation, group, resource, time.Since(start), err)
}

// keyResource reads the group and resource of a storage key
// "/group/resource/...".
func keyResource(key string) (group, resource string) {
	parts := strings.SplitN(strings.TrimPrefix(key, "/"), "/", 3)
	if len(parts) < 3 {
		return "", ""
	}
	group, resource = parts[0], parts[1]
	if group == "core" {
		group = ""
	}
	return group, resource
}
