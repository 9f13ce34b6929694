package reloadcontroller

import (
	"strings"

	"k8s.io/klog/v2"
)

// OutcomeType names what a sync did to one Deployment that is worth telling the user.
type OutcomeType string

const (
	// Restarted: a config restart was written (its Event reason ReasonRestarted).
	Restarted OutcomeType = "Restarted"
	// Adopted: the checksums were recorded at first sight without a restart (ReasonAdopted).
	Adopted OutcomeType = "Adopted"
	// Refused: a restart was refused (ReasonRefused); Name is empty, Message names the object.
	Refused OutcomeType = "Refused"
	// RolloutFailed: the rollout of a restart did not complete (ReasonRolloutFailed).
	RolloutFailed OutcomeType = "RolloutFailed"
	// GaveUp: the workqueue dropped a key after watch.MaxRetries failed syncs; Name is the
	// queue key (namespace/name).
	GaveUp OutcomeType = "GaveUp"
)

// Outcome is one thing the controller tells: the same text its Event carries (names and
// keys, never a value). The controller logs it (klog, structured) and hands it to
// Config.Report; how it is shown is the caller's (kubectl rollplan reload --watch prints one
// line per outcome with pkg/printer).
type Outcome struct {
	Type OutcomeType
	// Resource is kubectl's resource of the object: "" for a Deployment (deployment.apps),
	// "statefulset.apps" or "daemonset.apps".
	Resource  string
	Namespace string
	Name      string
	Message   string
}

// report logs o at -v=2 and hands it to Config.Report.
func (c *Controller) report(o Outcome) {
	klog.V(2).InfoS("reload outcome", "type", o.Type, "resource", o.Resource, "object", klog.KRef(o.Namespace, o.Name), "message", o.Message)
	if c.cfg.Report != nil {
		c.cfg.Report(o)
	}
}

// restartMessage is the message of the Event a config restart records on its Deployment,
// naming what changed: `restarted for changed config: ConfigMap/app [a b], Secret/db [*]`
// (reload.Ref.String of each: kind, name, keys; never a value).
func restartMessage(changed []string) string {
	if len(changed) == 0 {
		return "restarted for changed config"
	}
	return "restarted for changed config: " + strings.Join(changed, ", ")
}

// adoptMessage is the message of the Event of an adoption (checksums recorded at first
// sight, no restart), naming the references recorded.
func adoptMessage(recorded []string) string {
	return "recorded the config checksums without a restart (first sight): " + strings.Join(recorded, ", ")
}

// firstSightRestartMessage is the message of the Event of a restart at first sight (no
// checksum recorded yet, config data written after the current pods were created):
// `restarted at first sight: possibly stale since T: EVIDENCE` with the evidence of
// reload.Assessment.Summary (names and times, never a value).
func firstSightRestartMessage(summary string) string {
	return "restarted at first sight: " + summary
}
