//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package kubectltest

import (
	"os"
	"syscall"
)

const canLock = true

// lockFile takes an exclusive lock on path, creating it, and returns the
// function that releases it. Parallel test processes use it so that only one
// of them runs go build on the shared binary at a time.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, &os.PathError{Op: "flock", Path: path, Err: err}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
