package apiserver

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
)

// TestReadAll checks that a body reads whole whatever length it
// announces, and that one announcing its length is read into one
// allocation.
func TestReadAll(t *testing.T) {
	body := strings.Repeat("0123456789", 400)
	for _, tc := range []struct {
		name string
		size int64
	}{
		{"announced", int64(len(body))},
		{"unknown", -1},
		{"announced shorter", 10},
		{"announced longer", int64(len(body)) * 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := handlers.ReadAll(strings.NewReader(body), tc.size)
			if err != nil || string(got) != body {
				t.Errorf("read %d bytes, %v; want %d", len(got), err, len(body))
			}
		})
	}
	r := bytes.NewReader(nil)
	allocs := testing.AllocsPerRun(20, func() {
		r.Reset([]byte(body))
		_, _ = handlers.ReadAll(r, int64(len(body)))
	})
	if allocs > 2 {
		t.Errorf("reading a body of announced length allocated %v times", allocs)
	}
}

// TestBlank checks which bodies count as empty, and that telling does
// not copy the body.
func TestBlank(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{"", true},
		{" \t\r\n", true},
		{"\u00a0\u2003", true},
		{"{}", false},
		{"  x ", false},
	} {
		if got := handlers.Blank([]byte(tc.body)); got != tc.want {
			t.Errorf("blank(%q) = %v, want %v", tc.body, got, tc.want)
		}
	}
	body := []byte(" " + strings.Repeat("x", 2000) + " ")
	if n := testing.AllocsPerRun(20, func() { handlers.Blank(body) }); n != 0 {
		t.Errorf("blank allocated %v times", n)
	}
}
