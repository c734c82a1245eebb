package splice

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// spliceOf is MaySplice by its definition: some split of pre starts and
// ends value.
func spliceOf(pre, value []byte) bool {
	if len(value) < len(pre) {
		return false
	}
	for k := 0; k <= len(pre); k++ {
		if bytes.HasPrefix(value, pre[:k]) && bytes.HasSuffix(value, pre[k:]) {
			return true
		}
	}
	return false
}

func TestMaySplice(t *testing.T) {
	long := bytes.Repeat([]byte("abcdefgh"), 40)
	spliced := append(append(append([]byte(nil), long[:150]...), "INSERTED"...), long[150:]...)
	changed := bytes.Clone(spliced)
	changed[200] = 'X'
	for _, tc := range []struct {
		name       string
		pre, value []byte
		want       bool
	}{
		{"equal", long, long, true},
		{"spliced", long, spliced, true},
		{"spliced at the start", []byte("ab"), []byte("xab"), true},
		{"spliced at the end", []byte("ab"), []byte("abx"), true},
		{"changed after the splice", long, changed, false},
		{"changed before the splice", long, append([]byte("X"), spliced[1:]...), false},
		{"shorter", long, long[1:], false},
		{"empty", nil, []byte("x"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MaySplice(tc.pre, tc.value); got != tc.want || got != spliceOf(tc.pre, tc.value) {
				t.Errorf("MaySplice = %v, want %v", got, tc.want)
			}
		})
	}
	r := rand.New(rand.NewPCG(20, 5))
	for range 2000 {
		pre := make([]byte, r.IntN(300))
		for i := range pre {
			pre[i] = "ab"[r.IntN(2)]
		}
		k := r.IntN(len(pre) + 1)
		value := append(append(append([]byte(nil), pre[:k]...), bytes.Repeat([]byte("a"), r.IntN(3))...), pre[k:]...)
		if r.IntN(2) == 0 && len(value) > 0 {
			value[r.IntN(len(value))] ^= 3
		}
		if got, want := MaySplice(pre, value), spliceOf(pre, value); got != want {
			t.Fatalf("MaySplice(%q, %q) = %v, want %v", pre, value, got, want)
		}
	}
}
