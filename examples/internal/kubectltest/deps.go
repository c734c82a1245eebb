//go:build kubectltest_deps

// This file is never compiled. "go mod tidy" does not look inside testdata
// directories, so it names the packages testdata/kubectl imports to keep
// them, at their pinned versions, in examples/go.mod.

package kubectltest

import (
	_ "k8s.io/component-base/cli"
	_ "k8s.io/kubectl/pkg/cmd"
	_ "k8s.io/kubectl/pkg/cmd/util"
)
