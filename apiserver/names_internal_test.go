package apiserver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
)

// TestFormatUID: a UID is written as fmt's %x of its five groups would
// write it, for fixed and random bytes.
func TestFormatUID(t *testing.T) {
	cases := [][16]byte{
		{},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var b [16]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		cases = append(cases, b)
	}
	for _, b := range cases {
		want := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
		if got := pipeline.FormatUID(b); got != want {
			t.Errorf("formatUID(%x) = %q, want %q", b, got, want)
		}
	}
}

// TestNewUIDIsVersion4: a new UID carries version 4 and the RFC 4122
// variant, and two are not the same.
func TestNewUIDIsVersion4(t *testing.T) {
	a, b := pipeline.NewUID(), pipeline.NewUID()
	for _, u := range []string{a, b} {
		if len(u) != 36 || u[14] != '4' || !(u[19] == '8' || u[19] == '9' || u[19] == 'a' || u[19] == 'b') {
			t.Errorf("UID %q is not a version 4 UUID", u)
		}
	}
	if a == b {
		t.Errorf("two new UIDs are both %q", a)
	}
}

// TestIsDNSSubdomainMatchesRegexp: the hand-written check agrees with
// dnsSubdomain on fixed and random strings of the characters that
// matter.
func TestIsDNSSubdomainMatchesRegexp(t *testing.T) {
	cases := []string{"", "a", "-", ".", "a.", ".a", "a..b", "a-b", "-a", "a-", "a.b-c.d", "A", "a_b", "9", "a.-b", "a-.b", "é", "x\n"}
	rng := rand.New(rand.NewPCG(5, 6))
	const chars = "ab9-.A_"
	for range 5000 {
		b := make([]byte, rng.IntN(8))
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := pipeline.IsDNSSubdomain(s), dnsSubdomain.MatchString(s); got != want {
			t.Errorf("isDNSSubdomain(%q) = %v, the regular expression says %v", s, got, want)
		}
	}
}
