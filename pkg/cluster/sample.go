package cluster

import (
	"bytes"
	_ "embed"
)

//go:embed samples/web.yaml
var sampleYAML []byte

// SampleName is the Deployment of the bundled sample state.
const SampleName = "web"

// SampleSource is the State.Source of the bundled sample.
const SampleSource = "sample:web.yaml"

// SampleYAML returns the bundled sample state file (a copy): `kubectl get deploy,rs -o yaml`
// of a Deployment web in namespace default, 10 replicas of nginx:1.20, RollingUpdate
// 25%/25%, with ReplicaSets of revisions 1 (nginx:1.18), 2 (nginx:1.19, the
// `rollout undo` target) and 3 (nginx:1.20, current), recorded on a v1.36.3 cluster.
func SampleYAML() []byte {
	return bytes.Clone(sampleYAML)
}

// Sample returns the State of the bundled sample (see SampleYAML), for offline demos.
func Sample() (*State, error) {
	return LoadReader(bytes.NewReader(sampleYAML), SampleSource, "", SampleName)
}
