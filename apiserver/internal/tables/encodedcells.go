package tables

import (
	"bytes"
	"encoding/binary"
	"time"
)

// A row's cells are kept encoded, as JSON separated by commas, once per
// object version. Only a date cell depends on the time of the request:
// it is kept as a hole holding the time, which AppendAged renders as
// the age at the request's time.

// dateHole marks a date cell in encoded cells: the byte is followed by
// the time as 8 bytes of Unix seconds and 4 of nanoseconds. Encoded JSON
// never holds a raw NUL byte, so the mark cannot be confused with a value.
const (
	dateHole    = 0
	dateHoleLen = 1 + 8 + 4
)

// AppendDateHole appends the hole of a date cell of time t.
func AppendDateHole(dst []byte, t time.Time) []byte {
	dst = append(dst, dateHole)
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.Unix()))
	return binary.BigEndian.AppendUint32(dst, uint32(t.Nanosecond()))
}

// AppendAged appends encoded cells with each date rendered as its age
// at now.
func AppendAged(dst []byte, cells []byte, now time.Time) []byte {
	for {
		i := bytes.IndexByte(cells, dateHole)
		if i < 0 || len(cells) < i+dateHoleLen {
			return append(dst, cells...)
		}
		dst = append(dst, cells[:i]...)
		sec := int64(binary.BigEndian.Uint64(cells[i+1:]))
		nsec := int64(binary.BigEndian.Uint32(cells[i+9:]))
		dst = append(dst, '"')
		dst = AppendAge(dst, now.Sub(time.Unix(sec, nsec)))
		dst = append(dst, '"')
		cells = cells[i+dateHoleLen:]
	}
}
