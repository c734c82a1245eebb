//go:build !unix

package bench_test

import "time"

// processCPU is not measured here: cpu-us/delivery reads 0.
func processCPU() time.Duration { return 0 }
