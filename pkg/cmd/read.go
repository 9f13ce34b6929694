package cmd

import "github.com/rollplan/kubectl-rollplan/pkg/pipeline"

// loadLive is pipeline.LoadLive: one Deployment's live state (one GET, one LIST), sent again
// through transient failures of the API server.
var loadLive = pipeline.LoadLive
