package meta

import (
	"encoding/json"
	"time"
)

// Time is a timestamp that travels as RFC 3339 in UTC with second
// precision, as Kubernetes' meta/v1 Time does. The zero Time encodes as
// null.
type Time struct {
	time.Time `protobuf:"-"`
}

// Now returns the current time truncated to the second.
func Now() Time { return Time{time.Now().UTC().Truncate(time.Second)} }

// NewTime wraps t, truncated to the second.
func NewTime(t time.Time) Time { return Time{t.UTC().Truncate(time.Second)} }

// MarshalJSON writes the time as an RFC 3339 string, or null when zero.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	buf := make([]byte, 0, len(time.RFC3339)+2)
	buf = append(buf, '"')
	buf = t.UTC().AppendFormat(buf, time.RFC3339)
	buf = append(buf, '"')
	return buf, nil
}

// UnmarshalJSON reads an RFC 3339 string or null.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.UTC()
	return nil
}
