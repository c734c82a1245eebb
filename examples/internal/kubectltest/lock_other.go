//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package kubectltest

import "errors"

// Without flock, each test process builds into its own temporary directory.
const canLock = false

func lockFile(string) (func(), error) { return nil, errors.New("file locking not supported") }
