package cbor

import (
	"encoding/binary"
	"fmt"
)

// Decoding allocates for every data item of a body: its value in Go's
// generic form, then its JSON text, then its decoded JSON value, a few
// hundred bytes in all, whatever its size. One CBOR data item can be a
// single byte (a small integer, an empty map or array), so a 1 MiB body
// of them once cost over 200 bytes allocated per byte. A body may hold
// FreeItems data items, plus one per BytesPerItem bytes beyond; ordinary
// objects (text keys, strings, numbers) are far below it.
const (
	FreeItems    = 16384
	BytesPerItem = 4
)

// ErrTooDense is returned for a body with more data items than FreeItems
// and BytesPerItem allow for its size.
var ErrTooDense = fmt.Errorf("cbor: more than one data item per %d bytes", BytesPerItem)

// checkItems counts the data items of data in one pass over their heads,
// without decoding or allocating, and returns ErrTooDense when there are
// too many. The items of arrays and maps follow their heads, so counting
// heads and skipping string contents counts every item. A malformed body
// is left for the decoder to refuse.
func checkItems(data []byte) error {
	limit := FreeItems + len(data)/BytesPerItem
	items := 0
	for i := 0; i < len(data); {
		b := data[i]
		i++
		major, info := b>>5, b&0x1f
		var arg uint64
		switch {
		case info < 24:
			arg = uint64(info)
		case info <= 27:
			n := 1 << (info - 24)
			if len(data)-i < n {
				return nil
			}
			arg = readUint(data[i : i+n])
			i += n
		case info == 31: // indefinite length, or a break
		default:
			return nil // reserved: malformed
		}
		if (major == 2 || major == 3) && info != 31 {
			if arg > uint64(len(data)-i) {
				return nil
			}
			i += int(arg)
		}
		if items++; items > limit {
			return ErrTooDense
		}
	}
	return nil
}

func readUint(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(b))
	case 4:
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}
