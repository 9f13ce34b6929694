// Command kubectl-rollplan is the kubectl plugin "kubectl rollplan": it previews, and can
// drive, the rollout the Kubernetes Deployment controller (v1.36.3) would make.
package main

import (
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	_ "k8s.io/client-go/plugin/pkg/client/auth" // exec, oidc and other auth providers, as kubectl

	"github.com/rollplan/kubectl-rollplan/pkg/cmd"
)

func main() {
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	root := cmd.NewCmdRollplan(streams)
	if err := root.Execute(); err != nil {
		os.Exit(cmd.HandleError(streams.ErrOut, err))
	}
}
