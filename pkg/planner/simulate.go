package planner

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

// ErrNoFixedPoint is returned when the simulated controller keeps writing past the bound on
// syncs (Input.MaxSyncs, or the built-in guard). The real controller always settles; this is
// a planner bug or an absurd bound.
var ErrNoFixedPoint = errors.New("the simulated controller did not settle")

// ErrNotModelled is wrapped by a planner's refusal of an input it has no model for (the
// DaemonSet and StatefulSet planners: a readiness model they do not play). Its text reads
// inside the refusal ("readiness "x" is not modelled for DaemonSets: ..."); callers tell a
// refusal from a failure with errors.Is.
var ErrNotModelled = errors.New("not modelled")

// Simulate plays the v1.36.3 Deployment controller's syncs from in, applying the readiness
// model between syncs, until the controller settles, and returns every ReplicaSet replica
// write it makes, in order.
//
// It returns an error for a Deployment it cannot model: no spec.replicas after defaulting is
// not possible, but an unknown strategy type, an unparsable maxSurge/maxUnavailable, the
// deprecated rollbackTo annotation, or an empty selector are errors. In is not modified.
//
// Memory is proportional to the number of steps times the number of ReplicaSets; time to the
// number of syncs (about 1.5 per step).
//
// Mirrors syncDeployment, pkg/controller/deployment/deployment_controller.go, v1.36.3.
func Simulate(in Input) (*Plan, error) {
	s, err := newSimulation(in)
	if err != nil {
		return nil, err
	}
	if err := s.run(); err != nil {
		return nil, err
	}
	return s.finish(), nil
}

// simulation holds the state of one Simulate call.
type simulation struct {
	d         *appsv1.Deployment // defaulted copy of the input; status.replicas kept up to date
	replicas  int32
	st        Strategy
	readiness Readiness
	maxSyncs  int
	podCap    func(names []string, replicas []int32) []int32

	// desiredStr and maxStr are the values SetReplicasAnnotations writes.
	desiredStr, maxStr string

	rss   []*replicaSet // every ReplicaSet, in creation order (Plan.ReplicaSets order)
	newRS *replicaSet   // the Deployment's new ReplicaSet (may not exist yet)
	// annotationSync: the existing new ReplicaSet still needs getNewReplicaSet's annotation
	// and minReadySeconds update (copied Deployment annotations, a revision bump).
	annotationSync bool

	plan           *Plan
	sync           int
	wrote          bool // the current sync made a ReplicaSet write
	statusWrote    bool // the current sync wrote the Deployment's status only (a collision)
	pendingWait    Wait // what the next step waits for
	oldPodsAtStart bool
	// completeAtStart: the Deployment's status as given shows the rollout complete
	// (deploymentutil.DeploymentComplete).
	completeAtStart bool
	// startCollisionCount is the Deployment's status.collisionCount as given.
	startCollisionCount *int32
	// collisionSyncs counts the syncs that fail on a hash collision before the create works.
	collisionSyncs int
	slab           []int32       // backing store for Step.Replicas
	activeBuf      []*replicaSet // reused by activeOldRSs
	// The steps so far: full chunks, the chunk being filled, and their count (appendStep).
	stepChunks [][]Step
	steps      []Step
	nSteps     int
	// recreateScaledDown: a step scaled an old ReplicaSet down for Recreate.
	recreateScaledDown bool

	// timed is the clock and the pods under ReadinessTimed (nil otherwise); nowTime is
	// Input.Now.
	timed   *timedState
	nowTime time.Time
	// createdNow: this sync created the new ReplicaSet; collided: it ended on a hash collision.
	createdNow, collided bool
}

// now is the simulated time since the plan's start (0 without ReadinessTimed).
func (s *simulation) now() time.Duration {
	if s.timed == nil {
		return 0
	}
	return s.timed.now
}

func newSimulation(in Input) (*simulation, error) {
	if in.Deployment == nil {
		return nil, errors.New("no deployment given")
	}
	d, err := defaulted(in.Deployment)
	if err != nil {
		return nil, err
	}
	readiness := in.Readiness
	if readiness == "" {
		readiness = ReadinessBatched
	}
	if _, err := ParseReadiness(string(readiness)); err != nil {
		return nil, err
	}
	if readiness == ReadinessTimed {
		if err := validateTiming(in.Timing); err != nil {
			return nil, err
		}
		if in.PodCap != nil {
			return nil, errors.New("a pod cap (PodCap) is not modelled under the timed readiness model")
		}
	}
	st, err := resolveStrategy(d)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	s := &simulation{
		d:          d,
		replicas:   *d.Spec.Replicas,
		st:         st,
		readiness:  readiness,
		maxSyncs:   in.MaxSyncs,
		podCap:     in.PodCap,
		desiredStr: strconv.Itoa(int(*d.Spec.Replicas)),
		maxStr:     strconv.Itoa(int(*d.Spec.Replicas + st.MaxSurge)),
	}
	s.plan = &Plan{
		Namespace:               d.Namespace,
		Name:                    d.Name,
		Replicas:                s.replicas,
		Strategy:                st,
		Paused:                  d.Spec.Paused,
		Readiness:               readiness,
		ProgressDeadlineSeconds: d.Spec.ProgressDeadlineSeconds,
		MinReadySeconds:         d.Spec.MinReadySeconds,
		RevisionHistoryLimit:    d.Spec.RevisionHistoryLimit,
	}
	ds := d.Status
	s.completeAtStart = ds.UpdatedReplicas == s.replicas && ds.Replicas == s.replicas &&
		ds.AvailableReplicas == s.replicas && ds.ObservedGeneration >= d.Generation
	for _, rs := range in.ReplicaSets {
		s.rss = append(s.rss, newReplicaSetState(rs))
	}
	slices.SortFunc(s.rss, func(a, b *replicaSet) int { return cmpBefore(a, b) })
	// FindNewReplicaSet: the oldest ReplicaSet whose template matches wins.
	for _, rs := range in.ReplicaSets {
		if deployutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			st := s.find(rs.Name)
			if s.newRS == nil || st.before(s.newRS) {
				s.newRS = st
			}
		}
	}
	if s.newRS != nil {
		s.newRS.isNew = true
		var src *appsv1.ReplicaSet
		for _, rs := range in.ReplicaSets {
			if rs.Name == s.newRS.name {
				src = rs
			}
		}
		s.describeExistingNewRS(src)
	} else {
		s.describeCreatedNewRS(in)
	}
	for i, rs := range s.rss {
		rs.idx = i
		s.plan.ReplicaSets = append(s.plan.ReplicaSets, ReplicaSetInfo{Name: rs.name, Revision: rs.revision, New: rs.isNew})
		s.plan.Initial = append(s.plan.Initial, rs.replicas)
		s.plan.InitialAvailable = append(s.plan.InitialAvailable, rs.available)
		if !rs.isNew && rs.exists && rs.statusReplicas > 0 {
			s.oldPodsAtStart = true
		}
	}
	s.plan.ReplicaSets[s.newRS.idx].Revision = s.plan.NewReplicaSet.Revision
	s.nowTime = in.Now.Time
	if readiness == ReadinessTimed {
		s.initTimed(in.Timing)
	}
	return s, nil
}

func cmpBefore(a, b *replicaSet) int {
	switch {
	case a.before(b):
		return -1
	case b.before(a):
		return 1
	}
	return 0
}

func (s *simulation) find(name string) *replicaSet {
	for _, rs := range s.rss {
		if rs.name == name {
			return rs
		}
	}
	return nil
}

// defaulted returns a copy of d with the apps/v1 defaults the API server applies to the
// fields the planner reads (replicas 1, RollingUpdate 25%/25%), and checks what the
// controller could not act on.
func defaulted(in *appsv1.Deployment) (*appsv1.Deployment, error) {
	d := in.DeepCopy()
	if d.Spec.Replicas == nil {
		one := int32(1)
		d.Spec.Replicas = &one
	}
	if *d.Spec.Replicas < 0 {
		return nil, fmt.Errorf("deployment %s/%s: spec.replicas: Invalid value: %d: must be greater than or equal to 0", d.Namespace, d.Name, *d.Spec.Replicas)
	}
	if d.Spec.Strategy.Type == "" {
		d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RollingUpdateDeploymentStrategyType:
		if d.Spec.Strategy.RollingUpdate == nil {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		quarter := intstr.FromString("25%")
		if d.Spec.Strategy.RollingUpdate.MaxSurge == nil {
			d.Spec.Strategy.RollingUpdate.MaxSurge = &quarter
		}
		if d.Spec.Strategy.RollingUpdate.MaxUnavailable == nil {
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = &quarter
		}
	case appsv1.RecreateDeploymentStrategyType:
	default:
		return nil, fmt.Errorf("deployment %s/%s: spec.strategy.type: Unsupported value: %q: supported values: \"Recreate\", \"RollingUpdate\"", d.Namespace, d.Name, d.Spec.Strategy.Type)
	}
	if d.Spec.Selector == nil || (len(d.Spec.Selector.MatchLabels) == 0 && len(d.Spec.Selector.MatchExpressions) == 0) {
		return nil, fmt.Errorf("deployment %s/%s: spec.selector is empty: the controller refuses a Deployment that selects all pods", d.Namespace, d.Name)
	}
	if _, ok := d.Annotations[appsv1.DeprecatedRollbackTo]; ok {
		return nil, fmt.Errorf("deployment %s/%s carries the deprecated %s annotation: the controller's legacy rollback is not modelled; remove the annotation", d.Namespace, d.Name, appsv1.DeprecatedRollbackTo)
	}
	return d, nil
}

// describeExistingNewRS fills Plan.NewReplicaSet for a new ReplicaSet that exists already,
// with the revision getNewReplicaSet gives it (SetNewReplicaSetAnnotations).
func (s *simulation) describeExistingNewRS(src *appsv1.ReplicaSet) {
	rs := s.newRS
	newRevision := s.maxOldRevision() + 1
	info := NewReplicaSet{
		Name:             rs.name,
		PodTemplateHash:  src.Labels[appsv1.DefaultDeploymentUniqueLabelKey],
		Exists:           true,
		PreviousRevision: rs.revision,
		Revision:         rs.revision,
		RevisionHistory:  rs.revisionHistory,
		CollisionCount:   s.d.Status.CollisionCount,
	}
	// copyDeploymentAnnotationsToReplicaSet changes the ReplicaSet if any copied annotation differs.
	for k, v := range s.d.Annotations {
		if deployutil.SkipCopyAnnotation(k) {
			continue
		}
		if cur, ok := src.Annotations[k]; !ok || cur != v {
			s.annotationSync = true
		}
	}
	if src.Spec.MinReadySeconds != s.d.Spec.MinReadySeconds {
		s.annotationSync = true
	}
	switch {
	case rs.revisionErr:
		// SetNewReplicaSetAnnotations gives up on an unparsable revision and reports no
		// change, whatever annotations it copied: only a minReadySeconds change writes.
		s.annotationSync = src.Spec.MinReadySeconds != s.d.Spec.MinReadySeconds
	case rs.revision < newRevision:
		s.annotationSync = true
		info.Revision = newRevision
		info.Reused = rs.revisionSet && rs.revision > 0
		if rs.revisionSet {
			info.RevisionHistory = appendRevisionHistory(rs.revisionHistory, strconv.FormatInt(rs.revision, 10))
		}
	}
	s.plan.NewReplicaSet = info
}

// describeCreatedNewRS adds the ReplicaSet the controller will create, named with the hash
// of the template and the collision count. A name taken by another of the Deployment's
// ReplicaSets is a hash collision: the controller bumps status.collisionCount and retries.
func (s *simulation) describeCreatedNewRS(in Input) {
	cc := s.d.Status.CollisionCount
	s.startCollisionCount = cc
	var hash, name string
	for {
		hash = ComputeHash(&s.d.Spec.Template, cc)
		name = ReplicaSetName(s.d.Name, hash)
		if s.find(name) == nil {
			break
		}
		// Each collision costs the controller one sync: it bumps status.collisionCount by one
		// and requeues.
		next := ptr.Deref(cc, 0) + 1
		cc = &next
		s.collisionSyncs++
	}
	rs := &replicaSet{name: name, isNew: true, created: in.Now, newest: in.Now.IsZero(), noAnnotations: true}
	rs.revision = s.maxOldRevision() + 1
	rs.revisionSet = true
	s.newRS = rs
	s.rss = append(s.rss, rs)
	slices.SortFunc(s.rss, cmpBefore)
	s.plan.NewReplicaSet = NewReplicaSet{
		Name:            name,
		PodTemplateHash: hash,
		Revision:        rs.revision,
		CollisionCount:  cc,
	}
	s.d.Status.CollisionCount = cc
}

// maxOldRevision is deploymentutil.MaxRevision over the old ReplicaSets (unparsable
// revisions skipped, missing ones count 0).
func (s *simulation) maxOldRevision() int64 {
	var m int64
	for _, rs := range s.rss {
		if rs.isNew || !rs.exists || rs.deleted || rs.revisionErr {
			continue
		}
		m = max(m, rs.revision)
	}
	return m
}

// appendRevisionHistory appends oldRevision to the revision-history annotation, dropping the
// oldest entries to keep it within 2000 characters.
//
// Mirrors SetNewReplicaSetAnnotations, pkg/controller/deployment/util, v1.36.3.
func appendRevisionHistory(history, oldRevision string) string {
	const limit = 2000
	if history == "" {
		return oldRevision
	}
	oldRevisions := strings.Split(history, ",")
	totalLen := len(history) + len(oldRevision) + 1
	start := 0
	for totalLen > limit && start < len(oldRevisions) {
		totalLen = totalLen - len(oldRevisions[start]) - 1
		start++
	}
	if totalLen > limit {
		return history
	}
	out := append(oldRevisions[start:], oldRevision)
	return strings.Join(out, ",")
}
