package health_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver/health"
)

// TestShutdownOrder: the check fails at once, requests are served until
// the delay ends, then turned away; Run waits for those in flight and
// ends the long-running ones.
func TestShutdownOrder(t *testing.T) {
	s := health.NewShutdown()
	check := s.Check()
	r := httptest.NewRequest("GET", "/readyz", nil)
	if err := check.Check(r); err != nil {
		t.Fatalf("check before shutdown: %v", err)
	}
	if !s.Enter() {
		t.Fatal("a request was turned away before shutdown")
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), 50*time.Millisecond) }()
	for check.Check(r) == nil {
		time.Sleep(time.Millisecond)
	}
	<-s.LongRunning().Done()
	if s.Enter() {
		t.Fatal("a request was let in while draining")
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned %v with a request in flight", err)
	case <-time.After(20 * time.Millisecond):
	}
	s.Leave()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestShutdownContext: Run gives up when its context ends first.
func TestShutdownContext(t *testing.T) {
	s := health.NewShutdown()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Run(ctx, time.Hour); err != context.Canceled {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
}
