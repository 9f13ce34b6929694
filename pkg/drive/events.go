package drive

import "time"

// drive's writes go through pkg/kube (guarded JSON patches, the field manager, the retry
// policy), and its Events through a kube.Recorder (client-go's event broadcaster) with these
// reasons.

// Event reasons drive records on the Deployment.
const (
	ReasonTakeover = "RollplanTakeover"
	ReasonCreated  = "RollplanCreated"
	ReasonScaled   = "RollplanScaled"
	ReasonReplan   = "RollplanReplanned"
	ReasonHeld     = "RollplanHeld"
	ReasonHandBack = "RollplanHandBack"
	ReasonAbort    = "RollplanAbort"
	ReasonLease    = "RollplanLeaseTaken"
	ReasonStopped  = "RollplanStopped"
)

// eventFlushTimeout is how long a run waits, at its end, for its Events to be written.
const eventFlushTimeout = 10 * time.Second
