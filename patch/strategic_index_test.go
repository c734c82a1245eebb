package patch

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scanDeduplicate is kube's deduplication of a primitive merge list, which
// scans for each element's copies.
func scanDeduplicate(s []any) []any {
	length := len(s) - 1
	for i := 0; i < length; i++ {
		for j := i + 1; j <= length; j++ {
			if safeEqual(s[i], s[j]) {
				s[j] = s[length]
				s = s[0:length]
				length--
				j--
			}
		}
	}
	return s
}

// TestDeduplicateScalarsMatchesScan checks the indexed deduplication
// leaves exactly what kube's scan leaves, in the result and in the rest of
// the array (which a merged list may share with the live one).
func TestDeduplicateScalarsMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 3000; round++ {
		n := rng.Intn(40)
		values := 1 + rng.Intn(8)
		in := make([]any, n)
		for i := range in {
			switch rng.Intn(10) {
			case 0:
				in[i] = int64(rng.Intn(values))
			case 1:
				in[i] = nil
			default:
				in[i] = string(rune('a' + rng.Intn(values)))
			}
		}
		want := append([]any(nil), in...)
		got := append([]any(nil), in...)
		wantOut := scanDeduplicate(want)
		gotOut := (&merger{}).deduplicateScalars(got)
		if diff := cmp.Diff(wantOut, gotOut); diff != "" {
			t.Fatalf("input %v: result (-scan +indexed):\n%s", in, diff)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("input %v: array (-scan +indexed):\n%s", in, diff)
		}
	}
}
