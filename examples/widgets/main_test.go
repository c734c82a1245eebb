package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		args       []string
		want       int
		wantStderr string
	}{
		{[]string{"--help"}, 0, "-storage-media-type"},
		{[]string{"-h"}, 0, "-addr"},
		{[]string{"--no-such-flag"}, 1, "widgets: flag provided but not defined: -no-such-flag"},
		{[]string{"--storage", "floppy"}, 1, `widgets: unknown storage "floppy"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(context.Background(), tc.args, &stdout, &stderr); got != tc.want {
				t.Errorf("exit code %d, want %d; stderr:\n%s", got, tc.want, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, stderr.String())
			}
		})
	}
}
