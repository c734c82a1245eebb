package server

import (
	"io"
	"testing"
	"time"
)

// TestGCPercent: the command sets GOGC from --gc-percent, 75 unless
// given, and leaves it to the environment when GOGC is set there.
func TestGCPercent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     string
		want    int
		wantSet bool
	}{
		{name: "default", want: 75, wantSet: true},
		{name: "flag", args: []string{"--gc-percent", "100"}, want: 100, wantSet: true},
		{name: "off", args: []string{"--gc-percent=-1"}, want: -1, wantSet: true},
		{name: "GOGC wins", args: []string{"--gc-percent", "30"}, env: "200"},
		{name: "GOGC=off wins", env: "off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseFlags(tc.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) string {
				if k == "GOGC" {
					return tc.env
				}
				return ""
			}
			got, set := gcPercentToSet(f.gcPercent, getenv)
			if got != tc.want || set != tc.wantSet {
				t.Errorf("got %d, %v; want %d, %v", got, set, tc.want, tc.wantSet)
			}
		})
	}
}

// TestIdleRelease: the free heap goes back once allocation has been low
// for the whole period, once per quiet spell, and only when there is
// enough of it.
func TestIdleRelease(t *testing.T) {
	const mib = 1 << 20
	start := time.Unix(1000, 0)
	type step struct {
		at        time.Duration // since start
		allocated uint64        // cumulative
		free      uint64
		want      bool
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"burst then quiet", []step{
			{0, 0, 0, false},
			{1 * time.Second, 100 * mib, 64 * mib, false}, // busy
			{2 * time.Second, 101 * mib, 64 * mib, false}, // quiet since 1s
			{5 * time.Second, 102 * mib, 64 * mib, false}, // quiet for 4s
			{7 * time.Second, 103 * mib, 64 * mib, true},  // quiet for 6s
			{8 * time.Second, 103 * mib, 64 * mib, false}, // released already
			{9 * time.Second, 200 * mib, 64 * mib, false}, // busy again
			{14 * time.Second, 201 * mib, 64 * mib, true}, // quiet for 5s
		}},
		{"little free memory", []step{
			{0, 0, 0, false},
			{10 * time.Second, 1 * mib, 2 * mib, false},
			{20 * time.Second, 2 * mib, 2 * mib, false},
			{21 * time.Second, 2 * mib, 32 * mib, true},
		}},
		{"steady traffic", []step{
			{0, 0, 64 * mib, false},
			{3 * time.Second, 30 * mib, 64 * mib, false},
			{6 * time.Second, 60 * mib, 64 * mib, false},
			{9 * time.Second, 90 * mib, 64 * mib, false},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &idleRelease{after: 5 * time.Second}
			for i, s := range tc.steps {
				got := r.observe(heapSample{allocated: s.allocated, free: s.free}, start.Add(s.at))
				if got != s.want {
					t.Fatalf("step %d (%v): release %v, want %v", i, s.at, got, s.want)
				}
			}
		})
	}
}
