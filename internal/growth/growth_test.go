package growth_test

import (
	"testing"

	"github.com/kapi-dev/kapi/internal/growth"
)

// quadratic does n² units of work.
func quadratic(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s += i ^ j
		}
	}
	return s
}

// TestCheckCatchesQuadratic checks Check fails a quadratic cost and passes
// a linear one.
func TestCheckCatchesQuadratic(t *testing.T) {
	sink := 0
	ft := &fakeT{TB: t}
	growth.Check(ft, "quadratic", 8, 3, func() { sink += quadratic(1500) }, func() { sink += quadratic(12000) })
	if !ft.failed {
		t.Error("a quadratic cost passed")
	}
	ft = &fakeT{TB: t}
	growth.Check(ft, "linear", 8, 3, func() { sink += quadratic(3000) }, func() {
		for range 8 {
			sink += quadratic(3000)
		}
	})
	if ft.failed {
		t.Error("a linear cost failed")
	}
	_ = sink
}

type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Helper()               {}
