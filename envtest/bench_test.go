package envtest_test

import (
	"testing"
	"time"

	"github.com/kapi-dev/kapi/envtest"
)

// BenchmarkStartStop measures one environment's life with a CRD
// directory: Start to a ready rest.Config (reported as start-ms/op),
// then Stop. controller-runtime's envtest starts etcd and kube-apiserver
// processes, in seconds.
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
		})
	}
}
