package splice

import (
	"bytes"
	"strconv"
)

// MarkerIndex is the index of the first marker in value at or after
// from, found by its backslash, which is at offset slash in the marker.
// JSON text holds a backslash only in escapes, but a quote around every
// key and string, which made bytes.Index stop at each of them.
func MarkerIndex(value []byte, from int, marker []byte, slash int) int {
	for from += slash; from < len(value); {
		j := bytes.IndexByte(value[from:], '\\')
		if j < 0 {
			return -1
		}
		if i := from + j - slash; bytes.HasPrefix(value[i:], marker) {
			return i
		}
		from += j + 1
	}
	return -1
}

// AppendRVField appends the resourceVersion field that replaces a stored
// value's placeholder.
func AppendRVField(dst []byte, rev int64) []byte {
	dst = append(dst, `"resourceVersion":"`...)
	return append(strconv.AppendInt(dst, rev, 10), '"')
}
