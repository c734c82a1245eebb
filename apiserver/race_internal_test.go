//go:build race

package apiserver

// raceEnabled is set when the race detector is on: then sync.Pool drops
// some of what it is given, on purpose, and allocation counts that rely
// on pools do not hold.
const raceEnabled = true
