package growth_test

import (
	"fmt"
	"slices"

	"github.com/kapi-dev/kapi/internal/growth"
)

// Allocated reports the bytes one run allocates: here a copy of a
// 1 MiB slice.
func ExampleAllocated() {
	src := make([]byte, 1<<20)
	var dst []byte
	n := growth.Allocated(func() { dst = slices.Clone(src) })
	fmt.Println(n >= 1<<20, len(dst))
	// Output: true 1048576
}
