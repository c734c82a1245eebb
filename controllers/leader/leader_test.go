package leader_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/leader"
	"github.com/kapi-dev/kapi/kinds/coordinationv1"
)

// TestOneLeaderAtATime runs three candidates on one server: exactly one
// leads at any time, and when it leaves another takes over.
func TestOneLeaderAtATime(t *testing.T) {
	srv := apiserver.New(apiserver.Options{}).Register(coordinationv1.LeaseKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var leading, maxLeading atomic.Int32
	var mu sync.Mutex
	leaders := map[string]int{}
	cancels := map[string]context.CancelFunc{}
	var wg sync.WaitGroup
	for _, id := range []string{"a", "b", "c"} {
		ctx, cancel := context.WithCancel(context.Background())
		cancels[id] = cancel
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := leader.Options{Identity: id, LeaseDuration: time.Second, RetryPeriod: 50 * time.Millisecond}
			err := leader.Run(ctx, srv, opts, func(ctx context.Context) {
				n := leading.Add(1)
				for {
					m := maxLeading.Load()
					if n <= m || maxLeading.CompareAndSwap(m, n) {
						break
					}
				}
				mu.Lock()
				leaders[id]++
				mu.Unlock()
				<-ctx.Done()
				leading.Add(-1)
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	current := func() string {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			for id, n := range leaders {
				if n > 0 && cancels[id] != nil {
					mu.Unlock()
					return id
				}
			}
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatal("no leader")
		return ""
	}
	first := current()
	time.Sleep(300 * time.Millisecond) // renewals go on; nobody else leads
	mu.Lock()
	if len(leaders) != 1 {
		t.Errorf("leaders %v while the first still renews", leaders)
	}
	cancels[first]()
	cancels[first] = nil
	mu.Unlock()
	second := current()
	if second == first {
		t.Fatalf("the leader that left leads again")
	}
	for _, c := range cancels {
		if c != nil {
			c()
		}
	}
	wg.Wait()
	if m := maxLeading.Load(); m != 1 {
		t.Errorf("%d candidates led at once", m)
	}
}

func TestIdentityRequired(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	defer srv.Close()
	if err := leader.Run(context.Background(), srv, leader.Options{}, func(context.Context) {}); err == nil {
		t.Error("no identity accepted")
	}
}
