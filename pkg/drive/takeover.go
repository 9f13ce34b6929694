package drive

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Takeover is what drive will do to a Deployment it does not hold yet, decided before any
// write: the target, the bounds and the steps.
type Takeover struct {
	// Live is the Deployment as read; Desired the Deployment after the change
	// (server-defaulted), or Live itself when adopting a rollout in flight.
	Live, Desired *appsv1.Deployment
	// ReplicaSets are the ReplicaSets the controller claims, oldest first.
	ReplicaSets []*appsv1.ReplicaSet
	// NewName and TargetHash name the new ReplicaSet; Reuse is the existing ReplicaSet with
	// the target template (a rollback target, or the new ReplicaSet of an adopted rollout),
	// nil when drive creates it.
	NewName, TargetHash string
	Reuse               *appsv1.ReplicaSet
	// Previous is the ReplicaSet of the live template (what abort walks back to), nil if it
	// has none.
	Previous *appsv1.ReplicaSet
	// Revision is the revision the new ReplicaSet gets (max of the others + 1).
	Revision int64
	// Bounds are the desired strategy's fenceposts at the desired replicas.
	Bounds Bounds
	// Start and Steps are the drive's plan.
	Start Start
	Steps []Step
	// Adopted: the takeover adopts a rollout in flight.
	Adopted bool
	// Warnings are things the user should know (orphans, a paused Deployment ...).
	Warnings []string
}

// NothingToDoError says the change is rolled out already (for example a drive run again
// after the one that finished was killed before it could say so).
type NothingToDoError struct{ Msg string }

func (e *NothingToDoError) Error() string { return e.Msg }

// Foreign rollout controllers drive refuses to compete with: annotation key prefixes on
// the Deployment.
var foreignAnnotationPrefixes = []string{
	"rollouts.kruise.io/",  // OpenKruise Rollouts (native Deployments in canary/partition)
	"rollout.argoproj.io/", // Argo Rollouts (workloadRef'd Deployments)
	"argo-rollouts.argoproj.io/",
	"flagger.app/",
}

// PlanTakeover checks that drive may take over live (a Deployment it does not hold) to roll
// out desired (nil: adopt the rollout in flight, which needs adopt), and returns the plan.
//
// Refused, each with the reason and what to do: a Deployment being deleted; one owned by
// another controller (a controller ownerReference) or carrying another rollout controller's
// annotations (OpenKruise, Argo Rollouts, Flagger); revisionHistoryLimit 0 (the paused
// controller would delete the old ReplicaSet abort walks back to); a strategy other than
// RollingUpdate; 0 replicas; a change that leaves the pod template as it is; a rollout in
// flight unless adopt; a hash collision with an existing ReplicaSet.
func PlanTakeover(st *cluster.State, desired *appsv1.Deployment, adopt bool) (*Takeover, error) {
	live := st.Deployment
	if live == nil {
		return nil, fmt.Errorf("drive needs a Deployment that exists: create it first (kubectl apply -f), then drive changes to it")
	}
	ref := fmt.Sprintf("deployment %s/%s", live.Namespace, live.Name)
	if err := refuseForeign(ref, live); err != nil {
		return nil, err
	}
	desired, inFlight, err := takeoverDesired(ref, st, desired, adopt)
	if err != nil {
		return nil, err
	}
	t := &Takeover{Live: live, Desired: desired, ReplicaSets: st.ReplicaSets, Adopted: inFlight}
	if t.Bounds, err = desiredBounds(ref, desired); err != nil {
		return nil, err
	}
	if err := t.chooseTarget(ref, st); err != nil {
		return nil, err
	}
	t.Previous = previousReplicaSet(live, st.ReplicaSets, t.NewName, inFlight)
	t.Start = takeoverStart(t, st.ReplicaSets)
	if t.Steps, err = PlanSteps(t.Bounds, t.Start); err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	t.Warnings = takeoverWarnings(st, desired, t.Previous)
	return t, nil
}

// takeoverDesired returns the Deployment to roll out (desired, or live itself to adopt the
// rollout in flight) and whether a rollout is in flight. Errors: nothing to drive, a rollout
// in flight without adopt, another controller's annotations on desired, a change that keeps
// the template (NothingToDoError).
func takeoverDesired(ref string, st *cluster.State, desired *appsv1.Deployment, adopt bool) (*appsv1.Deployment, bool, error) {
	live := st.Deployment
	inFlight, why := inFlight(live, deployutil.FindNewReplicaSet(live, st.ReplicaSets), st.ReplicaSets)
	switch {
	case desired == nil && !inFlight:
		return nil, false, fmt.Errorf("%s: nothing to drive: give a change (--image, -f, --replicas, --to-revision, --restart)", ref)
	case inFlight && !adopt:
		return nil, false, fmt.Errorf("%s has a rollout in flight that drive did not start (%s): wait for it (kubectl rollout status), or pass --adopt to drive it from where it stands", ref, why)
	case desired == nil:
		desired = live.DeepCopy()
	}
	if err := refuseForeign(ref, desired); err != nil {
		return nil, false, err
	}
	if !inFlight && deployutil.EqualIgnoreHash(&desired.Spec.Template, &live.Spec.Template) {
		rev := int64(0)
		if rs := deployutil.FindNewReplicaSet(live, st.ReplicaSets); rs != nil {
			rev = revisionOf(rs)
		}
		return nil, false, &NothingToDoError{Msg: fmt.Sprintf("%s runs this pod template already (revision %d): nothing to roll out (for --replicas alone use kubectl scale)", ref, rev)}
	}
	return desired, inFlight, nil
}

// desiredBounds refuses what drive cannot walk (revisionHistoryLimit 0, a strategy other
// than RollingUpdate, 0 replicas) and returns desired's bounds.
func desiredBounds(ref string, desired *appsv1.Deployment) (Bounds, error) {
	if l := desired.Spec.RevisionHistoryLimit; l != nil && *l == 0 {
		return Bounds{}, fmt.Errorf("%s has revisionHistoryLimit 0: while drive holds it paused, the controller deletes every old ReplicaSet at 0 replicas, and abort could not walk back; set spec.revisionHistoryLimit to 1 or more first", ref)
	}
	if desired.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		return Bounds{}, fmt.Errorf("%s has strategy %s: drive walks RollingUpdate Deployments within maxSurge and maxUnavailable; Recreate replaces every pod at once, there is nothing to step through", ref, desired.Spec.Strategy.Type)
	}
	r := ptr.Deref(desired.Spec.Replicas, 1)
	if r < 1 {
		return Bounds{}, fmt.Errorf("%s has 0 replicas: there are no pods to roll; apply the change directly", ref)
	}
	b, err := ResolveBounds(r, desired.Spec.Strategy)
	if err != nil {
		return Bounds{}, fmt.Errorf("%s: %w", ref, err)
	}
	return b, nil
}

// chooseTarget sets the new ReplicaSet of t: an existing one with the desired template
// (Reuse), or the name drive creates it under (refused on a hash collision), and its
// revision.
func (t *Takeover) chooseTarget(ref string, st *cluster.State) error {
	t.Reuse = deployutil.FindNewReplicaSet(t.Desired, st.ReplicaSets)
	if t.Reuse != nil {
		t.NewName = t.Reuse.Name
		t.TargetHash = t.Reuse.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
		t.Revision = max(revisionOf(t.Reuse), maxRevision(st.ReplicaSets, t.Reuse.Name)+1)
		return nil
	}
	t.TargetHash = planner.ComputeHash(&t.Desired.Spec.Template, t.Live.Status.CollisionCount)
	t.NewName = planner.ReplicaSetName(t.Live.Name, t.TargetHash)
	for _, rs := range append(slices.Clone(st.ReplicaSets), st.Foreign...) {
		if rs.Name == t.NewName {
			return fmt.Errorf("%s: the new ReplicaSet's name %s is taken by a ReplicaSet with another template (a hash collision): let the controller roll this change out (it bumps status.collisionCount)", ref, t.NewName)
		}
	}
	t.Revision = maxRevision(st.ReplicaSets, "") + 1
	return nil
}

// takeoverWarnings lists what the user should know before a takeover: orphans, foreign
// ReplicaSets, a paused Deployment, no ReplicaSet to walk back to.
func takeoverWarnings(st *cluster.State, desired *appsv1.Deployment, previous *appsv1.ReplicaSet) []string {
	var w []string
	for _, rs := range st.Orphans {
		w = append(w, fmt.Sprintf("ReplicaSet %s has no owner: the controller adopts it, and drive counts it as an old ReplicaSet", rs.Name))
	}
	for _, rs := range st.Foreign {
		w = append(w, fmt.Sprintf("ReplicaSet %s matches the selector but is controlled by another object: its pods are not counted", rs.Name))
	}
	if desired.Spec.Paused {
		w = append(w, "the Deployment is paused: drive rolls the change out anyway and hands it back paused")
	}
	if previous == nil {
		w = append(w, "the live template has no ReplicaSet: abort will have nothing to walk back to")
	}
	return w
}

// previousReplicaSet is what abort walks back to: the ReplicaSet of the live template, or,
// for a rollout in flight, the active ReplicaSet with the highest revision other than the
// target.
func previousReplicaSet(live *appsv1.Deployment, rss []*appsv1.ReplicaSet, target string, inFlight bool) *appsv1.ReplicaSet {
	if !inFlight {
		return deployutil.FindNewReplicaSet(live, rss)
	}
	var prev *appsv1.ReplicaSet
	for _, rs := range activeOld(rss, target) {
		if prev == nil || revisionOf(rs) >= revisionOf(prev) {
			prev = rs
		}
	}
	return prev
}

func takeoverStart(t *Takeover, rss []*appsv1.ReplicaSet) Start {
	s := Start{New: Counts{Name: t.NewName}}
	if t.Reuse != nil {
		s.New, s.NewExists = counts(t.Reuse), true
	}
	for _, rs := range activeOld(rss, t.NewName) {
		s.Old = append(s.Old, counts(rs))
	}
	return s
}

// inFlight reports whether live is in the middle of a rollout: its template has no
// ReplicaSet yet (a paused pending change), or ReplicaSets other than its new one still
// have replicas. It says which, for the refusal.
func inFlight(live *appsv1.Deployment, newRS *appsv1.ReplicaSet, rss []*appsv1.ReplicaSet) (bool, string) {
	if newRS == nil {
		if len(activeOld(rss, "")) == 0 {
			return false, ""
		}
		return true, "its pod template has no ReplicaSet yet: a change is pending"
	}
	var names []string
	for _, rs := range activeOld(rss, newRS.Name) {
		names = append(names, fmt.Sprintf("%s has %d", rs.Name, replicas(rs)))
	}
	if len(names) == 0 {
		return false, ""
	}
	return true, fmt.Sprintf("new ReplicaSet %s has %d of %d replicas; %s", newRS.Name, replicas(newRS), ptr.Deref(live.Spec.Replicas, 1), strings.Join(names, ", "))
}

// refuseForeign refuses a Deployment that another rollout controller owns.
func refuseForeign(ref string, d *appsv1.Deployment) error {
	if d.DeletionTimestamp != nil {
		return fmt.Errorf("%s is being deleted", ref)
	}
	if c := metav1.GetControllerOfNoCopy(d); c != nil {
		return fmt.Errorf("%s is controlled by %s %s (ownerReferences): that controller owns its rollouts; drive it there", ref, c.Kind, c.Name)
	}
	var keys []string
	for k := range d.Annotations {
		for _, p := range foreignAnnotationPrefixes {
			if strings.HasPrefix(k, p) {
				keys = append(keys, k)
			}
		}
	}
	if len(keys) > 0 {
		sort.Strings(keys)
		return fmt.Errorf("%s carries annotations of another rollout controller (%s): drive does not compete with it", ref, strings.Join(keys, ", "))
	}
	return nil
}
