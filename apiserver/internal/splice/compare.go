package splice

import "bytes"

// MaySplice reports whether value may be pre with bytes put in at one
// place, as a shared managedFields is put in: it must start with the
// part of pre before that place and end with the rest. false means no
// splice of pre gives value, told without making one.
func MaySplice(pre, value []byte) bool {
	if len(value) < len(pre) {
		return false
	}
	p := commonPrefix(pre, value)
	return commonSuffix(pre[p:], value[p:]) >= len(pre)-p
}

// chunk is how many bytes commonPrefix and commonSuffix compare at once.
const chunk = 64

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+chunk <= n && bytes.Equal(a[i:i+chunk], b[i:i+chunk]) {
		i += chunk
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+chunk <= n && bytes.Equal(a[len(a)-i-chunk:len(a)-i], b[len(b)-i-chunk:len(b)-i]) {
		i += chunk
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
