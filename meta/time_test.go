package meta

import (
	"encoding/json"
	"testing"
	"time"
)

func TestTimeUnmarshalJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     time.Time
		wantErr  bool
	}{
		{"utc", `"2024-01-02T03:04:05Z"`, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), false},
		{"offset", `"2024-01-02T03:04:05+02:00"`, time.Date(2024, 1, 2, 1, 4, 5, 0, time.UTC), false},
		{"escaped", `"2024-01-02T03:04:05\u005a"`, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), false},
		{"null", `null`, time.Time{}, false},
		{"number", `1`, time.Time{}, true},
		{"not a time", `"yesterday"`, time.Time{}, true},
		{"bad escape", `"2024-01-02T03:04:05\q"`, time.Time{}, true},
		{"control", "\"2024-01-02T03:04:05Z\x01\"", time.Time{}, true},
		{"unterminated", `"2024-01-02T03:04:05Z`, time.Time{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got Time
			err := json.Unmarshal([]byte(`{"t":`+tc.in+`}`), &struct {
				T *Time `json:"t"`
			}{&got})
			if (err != nil) != tc.wantErr || !got.Time.Equal(tc.want) || got.Location() != time.UTC && !got.IsZero() {
				t.Errorf("got %v, %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
			var direct Time
			if err := direct.UnmarshalJSON([]byte(tc.in)); (err != nil) != tc.wantErr || !direct.Time.Equal(tc.want) {
				t.Errorf("UnmarshalJSON: got %v, %v; want %v, error %v", direct, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestTimeUnmarshalJSONAllocs checks that a plain time string is read
// without encoding/json: one string and nothing else.
func TestTimeUnmarshalJSONAllocs(t *testing.T) {
	b := []byte(`"2024-01-02T03:04:05Z"`)
	mb := []byte(`"2024-01-02T03:04:05.123456Z"`)
	var tm Time
	var mt MicroTime
	if n := testing.AllocsPerRun(100, func() { _ = tm.UnmarshalJSON(b) }); n > 1 {
		t.Errorf("Time.UnmarshalJSON: %v allocations, want at most 1", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = mt.UnmarshalJSON(mb) }); n > 1 {
		t.Errorf("MicroTime.UnmarshalJSON: %v allocations, want at most 1", n)
	}
}
