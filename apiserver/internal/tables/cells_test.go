package tables

import (
	"testing"
	"time"
)

func TestHumanDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-2 * time.Second, "<invalid>"},
		{-500 * time.Millisecond, "0s"},
		{59 * time.Second, "59s"},
		{119 * time.Second, "119s"},
		{2 * time.Minute, "2m"},
		{2*time.Minute + 5*time.Second, "2m5s"},
		{45 * time.Minute, "45m"},
		{3*time.Hour + 20*time.Minute, "3h20m"},
		{30 * time.Hour, "30h"},
		{3*24*time.Hour + 4*time.Hour, "3d4h"},
		{100 * 24 * time.Hour, "100d"},
		{3*365*24*time.Hour + 10*24*time.Hour, "3y10d"},
		{9 * 365 * 24 * time.Hour, "9y"},
	}
	for _, tc := range tests {
		if got := HumanDuration(tc.d); got != tc.want {
			t.Errorf("HumanDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
