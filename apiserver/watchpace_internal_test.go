package apiserver

import (
	"testing"
	"time"
)

// TestFlushSpacing: the streams of a server share a budget of flushes a
// second, within the least and the most spacing.
func TestFlushSpacing(t *testing.T) {
	tests := []struct {
		streams int64
		want    time.Duration
	}{
		{0, minFlushSpacing},
		{1, minFlushSpacing},
		{75, 3 * time.Millisecond},
		{100, 4 * time.Millisecond},
		{1000, 40 * time.Millisecond},
		{10000, maxFlushSpacing},
	}
	for _, tc := range tests {
		if got := flushSpacingFor(tc.streams); got != tc.want {
			t.Errorf("%d streams: spacing %v, want %v", tc.streams, got, tc.want)
		}
	}
	var s watchStreams
	var closers []func()
	for range 1000 {
		closers = append(closers, s.open())
	}
	if got := s.spacing(); got != 40*time.Millisecond {
		t.Errorf("1000 open streams: spacing %v, want 40ms", got)
	}
	for _, c := range closers {
		c()
	}
	if got := s.spacing(); got != minFlushSpacing {
		t.Errorf("all closed: spacing %v, want %v", got, minFlushSpacing)
	}
}
