//go:build unix

package envtest_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/envtest"
)

// BenchmarkStartStop measures one environment's life with a CRD
// directory: Start to a ready rest.Config with the CRD Established
// (reported as start-ms/op), then Stop; cpu-ms/op is the process's CPU
// time per environment, which a loaded machine does not inflate as it
// does wall time. controller-runtime's envtest starts etcd and
// kube-apiserver processes, in seconds.
func BenchmarkStartStop(b *testing.B) {
	for _, bc := range []struct {
		name string
		env  func() *envtest.Environment
	}{
		{"RBAC", func() *envtest.Environment {
			return &envtest.Environment{CRDDirectoryPaths: []string{"testdata/crd"}, ErrorIfCRDPathMissing: true}
		}},
		{"AlwaysAllow", func() *envtest.Environment {
			return &envtest.Environment{CRDDirectoryPaths: []string{"testdata/crd"}, AuthorizationMode: envtest.AuthorizationAlwaysAllow}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var starting time.Duration
			cpu0 := cpuTime(b)
			for b.Loop() {
				env := bc.env()
				t0 := time.Now()
				if _, err := env.Start(); err != nil {
					b.Fatal(err)
				}
				starting += time.Since(t0)
				if err := env.Stop(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(starting.Microseconds())/1000/float64(b.N), "start-ms/op")
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
