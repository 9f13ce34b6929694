package printer

import (
	"runtime"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// NewVersionInfo returns the VersionInfo of this binary: version and commit as built (-ldflags),
// the Go runtime's version and GOOS/GOARCH, and "kube-controller-manager
// planner.ControllerVersion", the controller modelled.
func NewVersionInfo(version, commit string) VersionInfo {
	return VersionInfo{
		Version:    version,
		Commit:     commit,
		GoVersion:  runtime.Version(),
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
		Controller: "kube-controller-manager " + planner.ControllerVersion,
	}
}
