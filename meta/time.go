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
	s, err := unquoteTime(b)
	if err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.UTC()
	return nil
}

// unquoteTime returns the string the JSON b holds. A time is printable
// ASCII, whose quoted form is itself and which is read without
// encoding/json; anything else is unquoted by encoding/json, which also
// rejects what is not a string.
func unquoteTime(b []byte) (string, error) {
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' {
		plain := true
		for _, c := range b[1 : n-1] {
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				plain = false
				break
			}
		}
		if plain {
			return string(b[1 : n-1]), nil
		}
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}
