package drive

import "time"

// EventKind names one kind of progress line of a drive (pkg/printer's DriveProgress renders
// each to its line of text).
type EventKind int

// The kinds of progress events, with the fields of Event each one sets.
const (
	// EventNote: Text, a line without a kind of its own (the lease's lines).
	EventNote EventKind = iota
	// EventWarning: Message, a warning from the Event recorder.
	EventWarning
	// EventTookOver: Ref, Strategy (the original), ReplicaSet (the new one), Revision.
	EventTookOver
	// EventAdmissionChanged: ReplicaSet (the name the stored template hashes to), Previous
	// (the name planned).
	EventAdmissionChanged
	// EventStaleCopiesFailed: Err, removing the copies of the drive annotation failed.
	EventStaleCopiesFailed
	// EventNotObserved: Ref; the controller has not observed the takeover after 15s.
	EventNotObserved
	// EventNothingChanged: Ref; the first step was declined.
	EventNothingChanged
	// EventReplanned: Ref, From and To (spec.replicas), MaxPods, MinAvailable.
	EventReplanned
	// EventSpecDrift: Ref, From and To (metadata.generation).
	EventSpecDrift
	// EventBaking: Duration (the interval), Step, Steps.
	EventBaking
	// EventCreated: Step, Steps, ReplicaSet, Revision, Replicas.
	EventCreated
	// EventScaled: Step, Steps, Direction ("up" or "down"), ReplicaSet, From, To.
	EventScaled
	// EventStepDone: Step, Steps, Duration, Counts, Pods, Available, MaxPods, MinAvailable.
	EventStepDone
	// EventStepTimedOut: Step, Steps, Message (the timeout), Stalled (stall reasons),
	// Unavailable (the pods not available).
	EventStepTimedOut
	// EventWaitingOldPods (status): Step, Steps, Message (what is waited for), Duration.
	EventWaitingOldPods
	// EventWaitingAvailable (status): Step, Steps, ReplicaSet, Available, Want, Duration.
	EventWaitingAvailable
	// EventRetrying: What, Err, Deadline; the first transient failure of a write or read.
	EventRetrying
	// EventRetryAttempt (status): What, Attempt, Err, Duration (until the next attempt).
	EventRetryAttempt
	// EventRecovered: What, Attempt (the retries), Duration (since the first attempt).
	EventRecovered
	// EventHandedBack: Ref, Message (what was done), Strategy, Paused.
	EventHandedBack
	// EventHandedBackAt: Ref, Step, Steps, Strategy, Paused (kubectl rollplan resume).
	EventHandedBackAt
	// EventWaitingController (status): Message (the controller's status), Duration.
	EventWaitingController
	// EventControllerDone: Message (the controller's status once complete).
	EventControllerDone
	// EventTidyFailed: Ref, Err.
	EventTidyFailed
)

// IsStatus reports a status event: a wait's line that a terminal redraws in place.
func (k EventKind) IsStatus() bool {
	switch k {
	case EventWaitingOldPods, EventWaitingAvailable, EventRetryAttempt, EventWaitingController:
		return true
	}
	return false
}

// Event is one progress line of a drive, as fields; which fields are set depends on Kind
// (see the EventKind constants). Durations are as measured (the printer rounds them).
type Event struct {
	Kind EventKind
	// Ref names the Deployment: "deployment <namespace>/<name>".
	Ref string
	// Step of Steps (1-based).
	Step, Steps int
	// ReplicaSet and Previous name ReplicaSets; Revision is a revision number as text.
	ReplicaSet, Previous, Revision string
	// Direction of a scale: "up" or "down".
	Direction string
	// From and To: the values before and after (replicas, generation).
	From, To int64
	// Replicas of a created ReplicaSet; Pods, Available, Want: counts of pods.
	Replicas, Pods, Available, Want int32
	// MaxPods and MinAvailable: the drive's bounds.
	MaxPods, MinAvailable int32
	// Counts describes the ReplicaSets' replicas after a step ("new web-6f 2, old web-5d 1").
	Counts string
	// Strategy describes a strategy ("RollingUpdate maxSurge 25% maxUnavailable 25%").
	Strategy string
	Paused   bool
	// What names the operation retried ("scale replicaset ns/web-6f").
	What    string
	Attempt int
	// Duration: waited, baked, took, or the sleep before the next attempt, by Kind.
	Duration time.Duration
	Deadline time.Time
	// Message: a timeout, a controller's status or a warning, by Kind.
	Message string
	// Stalled and Unavailable: one line each (stall reasons; pods not available).
	Stalled, Unavailable []string
	Err                  error
	// Text: the line of an EventNote.
	Text string
}
