// Command kubectl is the upstream kubectl, built from the k8s.io/kubectl Go
// module at the version pinned in examples/go.mod. It is the same program as
// k8s.io/kubernetes/cmd/kubectl: the kubectltest package builds it once per
// test process and runs it as a subprocess against a kapi server.
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
