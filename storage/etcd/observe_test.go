package etcd_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/etcd"
)

// requests records what an etcd.Observer is told.
type requests struct {
	mu  sync.Mutex
	got []string
}

func (r *requests) ObserveEtcdRequest(op, group, resource string, d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, fmt.Sprintf("%s %s %s %v", op, group, resource, err != nil))
	if d <= 0 {
		r.got = append(r.got, "non-positive duration")
	}
}

// TestObserver: every request is reported under kube-apiserver's
// operation names, with the group and resource of its key.
func TestObserver(t *testing.T) {
	srv := startEtcd(t, t.TempDir(), false)
	obs := &requests{}
	s := etcd.New(srv.cli, etcd.Options{Prefix: "/kapi", Observer: obs})
	ctx := context.Background()
	key := "/stable.example.com/widgets/default/a"
	put, err := s.OptimisticPut(ctx, key, []byte("1"), 0, storage.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OptimisticPut(ctx, key, []byte("2"), put.KV.ModRevision, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Get(ctx, key, storage.GetOptions{})
	s.List(ctx, "/core/configmaps/", storage.ListOptions{})
	s.Revision(ctx)
	s.OptimisticDelete(ctx, key, put.KV.ModRevision+1, storage.DeleteOptions{})
	s.Get(ctx, "/other", storage.GetOptions{Revision: -1})
	want := []string{
		"create stable.example.com widgets false",
		"update stable.example.com widgets false",
		"get stable.example.com widgets false",
		"list  configmaps false",
		"getCurrentResourceVersion   false",
		"delete stable.example.com widgets false",
		"get   true",
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if fmt.Sprint(obs.got) != fmt.Sprint(want) {
		t.Errorf("observed\n%q\nwant\n%q", obs.got, want)
	}
}
