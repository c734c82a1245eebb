// Command kubectl is upstream kubectl, built from the k8s.io/kubectl Go
// module at the version pinned in examples/go.mod; this is the same main as
// k8s.io/kubernetes/cmd/kubectl. Package kubectltest builds it once and runs
// it as a subprocess against the server under test. It lives under testdata
// so that "go test ./..." does not compile it (with -race, at that); see the
// kubectltest package documentation.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		// Pretty-print the error and exit with an error, as upstream does.
		util.CheckErr(err)
	}
}
