package meta

import (
	"time"
)

// RFC3339Micro is the layout of a MicroTime on the wire: RFC 3339 with
// exactly six fractional digits.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// MicroTime is a timestamp with microsecond precision, as Kubernetes'
// meta/v1 MicroTime (used by Leases and events.k8s.io Events). The zero
// MicroTime encodes as null.
type MicroTime struct {
	time.Time `protobuf:"-"`
}

// NowMicro returns the current time truncated to the microsecond.
func NowMicro() MicroTime { return NewMicroTime(time.Now()) }

// NewMicroTime wraps t, truncated to the microsecond.
func NewMicroTime(t time.Time) MicroTime { return MicroTime{t.UTC().Truncate(time.Microsecond)} }

// MarshalJSON writes the time in RFC3339Micro, or null when zero.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	buf := make([]byte, 0, len(RFC3339Micro)+2)
	buf = append(buf, '"')
	buf = t.UTC().AppendFormat(buf, RFC3339Micro)
	return append(buf, '"'), nil
}

// UnmarshalJSON reads an RFC3339Micro string or null.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	s, err := unquoteTime(b)
	if err != nil {
		return err
	}
	pt, err := time.Parse(RFC3339Micro, s)
	if err != nil {
		return err
	}
	t.Time = pt.UTC()
	return nil
}

// MarshalCBOR writes the time as kube-apiserver does: the RFC3339Micro
// text in a CBOR byte string, or null when zero.
func (t MicroTime) MarshalCBOR() ([]byte, error) {
	if t.IsZero() {
		return []byte{0xf6}, nil
	}
	var s [len(RFC3339Micro) + 16]byte
	return cborBytes(t.UTC().AppendFormat(s[:0], RFC3339Micro)), nil
}
