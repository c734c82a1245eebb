//go:build !race

package apiserver

// raceEnabled is set when the race detector is on (see
// race_internal_test.go).
const raceEnabled = false
