package gc

import (
	"crypto/sha256"
	"encoding/hex"
)

// uid is an object's uid as the collector keeps it: 16 bytes in the node
// and as map keys, instead of a string of its own per object. The server
// writes uids as RFC 4122 UUIDs in canonical lowercase text, which uid
// holds as their 16 bytes; any other text is kept as a hash of it, marked
// with a variant (111) that no parsed UUID has, so the two never meet, and
// the graph remembers the text of its nodes' such uids (graph.text).
type uid [16]byte

// uidOf returns the uid of text s.
func uidOf(s string) uid {
	if u, ok := parseUUID(s); ok {
		return u
	}
	h := sha256.Sum256([]byte(s))
	var u uid
	copy(u[:], h[:])
	u[8] |= 0xe0
	return u
}

// parseUUID parses s as an RFC 4122 UUID (variant 10) in canonical
// lowercase text. Other spellings of the same bytes are other uids to the
// server, so they do not parse.
func parseUUID(s string) (uid, bool) {
	var u uid
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	j := 0
	for i := 0; i < len(s); i += 2 {
		if s[i] == '-' {
			i++
		}
		hi, ok1 := lowerHex(s[i])
		lo, ok2 := lowerHex(s[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[j] = hi<<4 | lo
		j++
	}
	return u, u.parsed()
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// parsed reports whether u is a UUID's bytes rather than a hash.
func (u uid) parsed() bool { return u[8]&0xc0 == 0x80 }

// uuidText returns the canonical text of u, a parsed UUID.
func (u uid) uuidText() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}
