package server

import (
	"io"
	"testing"
)

// TestGCPercent: the command sets GOGC from --gc-percent, 50 unless
// given, and leaves it to the environment when GOGC is set there.
func TestGCPercent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     string
		want    int
		wantSet bool
	}{
		{name: "default", want: 50, wantSet: true},
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
