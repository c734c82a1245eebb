package namespace

import (
	"context"
	"errors"
	"testing"

	"github.com/kapi-dev/kapi/kinds/corev1"
)

// TestPhaseFromMirror: once the mirror is ready, the phase of a namespace
// it knows is read without allocating (a write's admission asks it for
// every namespaced write); before, a cancelled write gives up.
func TestPhaseFromMirror(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name    string
		ready   bool
		ctx     context.Context
		want    string
		wantErr error
	}{
		{"ready", true, context.Background(), corev1.NamespaceActive, nil},
		{"ready, the write cancelled", true, cancelled, corev1.NamespaceActive, nil},
		{"not ready, the write cancelled", false, cancelled, "", context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLifecycle()
			l.phases["ns"] = corev1.NamespaceActive
			if tc.ready {
				close(l.ready)
			}
			got, err := l.phase(tc.ctx, "ns")
			if got != tc.want || !errors.Is(err, tc.wantErr) {
				t.Fatalf("phase = %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
			if !tc.ready {
				return
			}
			if allocs := testing.AllocsPerRun(100, func() { _, _ = l.phase(tc.ctx, "ns") }); allocs != 0 {
				t.Errorf("reading a known namespace's phase allocates %v times, want 0", allocs)
			}
		})
	}
}
