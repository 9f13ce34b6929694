package conformance

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"time"

	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// generate draws one start state from r: a Deployment (the desired one, after a change) and
// the 0..4 ReplicaSets it owns, covering
//   - replicas 0..30, and now and then 31..200;
//   - RollingUpdate with maxSurge/maxUnavailable as ints and percents (valid only: not both
//     zero, percents 0-100%), and Recreate;
//   - old ReplicaSets of any size and availability, each with its own revision (sometimes
//     out of creation order, as after a rollback), template (image) and pod-template-hash,
//     with the desired-replicas/max-replicas annotations the controller left (sometimes from
//     an older spec.replicas, which makes a scaling event; rarely missing);
//   - a new template, the template of the newest ReplicaSet (a rollout in flight, a steady
//     state, or a plain scaling event), or the template of an older ReplicaSet (a rollback
//     that reuses it); replica changes together with template changes;
//   - orphans with matching labels, which the controller adopts; ReplicaSets being deleted;
//   - paused Deployments, revisionHistoryLimit nil and 0..3 (and the default 10),
//     minReadySeconds changes, progressDeadlineSeconds unset or disabled, collisionCount,
//     Deployment annotations the controller copies to its new ReplicaSet, long names.
func generate(r *rand.Rand) *fixture {
	name := "web"
	if r.Intn(25) == 0 {
		// Long enough that generateReplicaSetName truncates it.
		name = "w" + strings.Repeat("e", 240+r.Intn(11)) + "b"
	}
	replicas := int32(r.Intn(31))
	if r.Intn(8) == 0 {
		replicas = int32(31 + r.Intn(170))
	}
	k := r.Intn(5) // old (or current) ReplicaSets
	f := newFixture(name, replicas, "app:v0")
	d := f.d
	if r.Intn(5) == 0 {
		f.recreate()
	} else {
		for {
			surge, unavailable := fencepost(r), fencepost(r)
			if isZeroFencepost(surge) && isZeroFencepost(unavailable) {
				continue // validation rejects both zero
			}
			f.rollingUpdate(surge, unavailable)
			break
		}
	}
	d.Spec.Paused = r.Intn(8) == 0
	switch r.Intn(6) {
	case 0:
		d.Spec.RevisionHistoryLimit = nil
	case 1:
		// the API server's default, 10, set by newFixture
	default:
		d.Spec.RevisionHistoryLimit = ptr.To(int32(r.Intn(4)))
	}
	switch r.Intn(20) {
	case 0:
		d.Spec.ProgressDeadlineSeconds = nil
	case 1:
		d.Spec.ProgressDeadlineSeconds = ptr.To[int32](math.MaxInt32)
	}
	if r.Intn(10) == 0 {
		d.Spec.MinReadySeconds = int32(5 * (1 + r.Intn(3)))
	}
	if r.Intn(7) == 0 {
		d.Status.CollisionCount = ptr.To(int32(r.Intn(3)))
	}
	if r.Intn(6) == 0 {
		d.Annotations = map[string]string{"example.com/team": "payments"}
	}

	// The replicas and strategy the ReplicaSets were last scaled for.
	prevReplicas := replicas
	if r.Intn(4) == 0 {
		prevReplicas = int32(r.Intn(31))
		if r.Intn(6) == 0 {
			prevReplicas = int32(r.Intn(201))
		}
	}
	prevDesired, prevMax := f.scaledAt(prevReplicas)

	// Revisions: consecutive from base, in creation order; sometimes shuffled (a rollback
	// happened, and an old template got a new revision).
	base := int64(1 + r.Intn(4))
	revisions := make([]int64, k)
	for i := range revisions {
		revisions[i] = base + int64(i)
	}
	shuffled := r.Intn(5) == 0
	if shuffled {
		r.Shuffle(k, func(i, j int) { revisions[i], revisions[j] = revisions[j], revisions[i] })
	}
	current := 0 // the ReplicaSet with the highest revision: the template before the change
	for i := range revisions {
		if revisions[i] > revisions[current] {
			current = i
		}
	}

	// The desired template.
	desired := fmt.Sprintf("app:v%d", k+1) // a new template
	changed := true
	switch m := r.Intn(100); {
	case k == 0 || m < 50:
	case m < 78 || k == 1:
		desired = fmt.Sprintf("app:v%d", current+1) // a rollout in flight, or a steady state
		changed = prevReplicas != replicas || r.Intn(3) == 0
	default:
		other := r.Intn(k - 1) // a rollback to an older template
		if other >= current {
			other++
		}
		desired = fmt.Sprintf("app:v%d", other+1)
	}
	d.Spec.Template.Spec.Containers[0].Image = desired

	// Sizes: a steady state, a rollout in flight, or anything.
	sizes := make([]int32, k)
	if k > 0 {
		switch r.Intn(3) {
		case 0:
			sizes[current] = prevReplicas
		case 1:
			total := max(0, int(prevReplicas)+r.Intn(int(*prevMax-*prevDesired)+1)-r.Intn(3))
			for i := range sizes {
				if i == k-1 {
					sizes[i] = int32(total)
					break
				}
				n := r.Intn(total + 1)
				sizes[i] = int32(n)
				total -= n
			}
			r.Shuffle(k, func(i, j int) { sizes[i], sizes[j] = sizes[j], sizes[i] })
		default:
			for i := range sizes {
				if r.Intn(5) < 2 {
					continue
				}
				sizes[i] = int32(r.Intn(int(prevReplicas) + 4))
			}
		}
	}

	created := int64(0)
	for i := range k {
		o := rsOpts{
			image:    fmt.Sprintf("app:v%d", i+1),
			replicas: sizes[i],
			revision: revisions[i],
			created:  created,
			desired:  prevDesired,
			max:      prevMax,
		}
		if r.Intn(10) != 0 {
			created += int64(1 + r.Intn(600)) // else the next one has the same creation time
		}
		o.available = o.replicas
		if r.Intn(5) < 2 {
			o.available = int32(r.Intn(int(o.replicas) + 1))
		}
		switch r.Intn(25) {
		case 0, 1, 2:
			o.desired, o.max = f.scaledAt(int32(r.Intn(31))) // left by an older scale
		case 3:
			o.desired, o.max = nil, nil
		}
		if shuffled && i != current {
			o.revisionHistory = strconv.FormatInt(revisions[i]-1, 10)
		}
		if r.Intn(3) != 0 {
			o.minReadySeconds = d.Spec.MinReadySeconds
		}
		if d.Annotations != nil && r.Intn(2) == 0 {
			o.annotations = map[string]string{"example.com/team": "payments"}
		}
		switch r.Intn(50) {
		case 0, 1:
			o.revision = 0 // no revision annotation
		case 2:
			o.badRevision = true
		}
		o.orphan = r.Intn(30) == 0
		o.deleting = !o.orphan && r.Intn(40) == 0 // the controller adopts no orphan being deleted
		if r.Intn(12) == 0 {
			// The ReplicaSet controller has not caught up: pods still starting or
			// terminating, perhaps the last spec change not yet observed.
			o.statusReplicas = ptr.To(int32(r.Intn(int(o.replicas) + 4)))
			o.available = min(o.available, *o.statusReplicas)
			if r.Intn(2) == 0 {
				o.available = int32(r.Intn(int(*o.statusReplicas) + 1))
			}
			o.staleGeneration = r.Intn(2) == 0
		}
		f.addRS(o)
	}
	switch r.Intn(30) {
	case 0:
		// A hash collision: an old ReplicaSet (another template) already has the name the
		// new one would get; the controller bumps collisionCount and retries.
		if k > 0 && desired == fmt.Sprintf("app:v%d", k+1) {
			f.takeNewName(f.rss[r.Intn(k)])
		}
	case 1:
		// A second ReplicaSet with the Deployment's template (kubernetes#40415): the
		// oldest one is the new ReplicaSet, the other an old one.
		replicas := int32(r.Intn(int(replicas) + 2))
		desiredAnn, maxAnn := f.scaledAt(prevReplicas)
		f.addRS(rsOpts{
			image: desired, replicas: replicas, available: int32(r.Intn(int(replicas) + 1)),
			revision: int64(r.Intn(int(base) + k + 1)), created: int64(r.Intn(int(created) + 2)),
			desired: desiredAnn, max: maxAnn, hashCollisionCount: ptr.To(int32(7 + r.Intn(3))),
		})
	}
	f.finish(changed)
	if r.Intn(20) == 0 {
		// The Deployment's status is behind (the fallback of the proportion estimate).
		d.Status.Replicas = max(0, d.Status.Replicas+int32(r.Intn(7)-3))
	}
	return f
}

// fencepost draws a maxSurge or maxUnavailable: an int (mostly small) or a percent 0-100%.
func fencepost(r *rand.Rand) string {
	if r.Intn(2) == 0 {
		if r.Intn(6) == 0 {
			return strconv.Itoa(r.Intn(40))
		}
		return strconv.Itoa(r.Intn(6))
	}
	percents := []int{0, 1, 5, 10, 20, 25, 30, 33, 50, 66, 75, 90, 100}
	return fmt.Sprintf("%d%%", percents[r.Intn(len(percents))])
}

// isZeroFencepost: the value validation rejects when both fenceposts are it (0 or 0%).
func isZeroFencepost(s string) bool { return s == "0" || s == "0%" }

// readyAfters are the ready-after durations generateTiming draws: zero, a few seconds, and
// one above the default progressDeadlineSeconds (600 s), so that the deadline passes.
var readyAfters = []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second, 5 * time.Second, 30 * time.Second, 700 * time.Second}

// generateTiming draws the timed model for a start state from r: 1..3 ready-after values
// (pods take them in turn), and sometimes, for a ReplicaSet with unavailable pods, the Ready
// moments of some of them (Pending; negative: Ready already, inside minReadySeconds).
func generateTiming(r *rand.Rand, f *fixture) *planner.Timing {
	tm := &planner.Timing{}
	for range 1 + r.Intn(3) {
		tm.ReadyAfter = append(tm.ReadyAfter, readyAfters[r.Intn(len(readyAfters))])
	}
	for _, rs := range f.rss {
		unavailable := int(rs.Status.Replicas - rs.Status.AvailableReplicas)
		if unavailable <= 0 || r.Intn(3) != 0 {
			continue
		}
		if tm.Pending == nil {
			tm.Pending = map[string][]time.Duration{}
		}
		for range 1 + r.Intn(unavailable) {
			tm.Pending[rs.Name] = append(tm.Pending[rs.Name], time.Duration(r.Intn(31)-10)*time.Second)
		}
	}
	return tm
}

// generateStaleLone draws the edge state of issue 10 from r: the Deployment's only active
// ReplicaSet is its new one, at spec.replicas, with some pods not available and a stale
// desired-replicas annotation (from an older spec.replicas), beside 0..2 old ReplicaSets at
// 0; RollingUpdate or Recreate, sometimes a lagging status or a paused Deployment. Every sync
// is a scaling event whose scale() leaves the lone ReplicaSet alone; the rollout is complete
// once the pods are available.
func generateStaleLone(r *rand.Rand) *fixture {
	replicas := int32(1 + r.Intn(20))
	f := newFixture("web", replicas, "app:v9")
	if r.Intn(4) == 0 {
		f.recreate()
	} else {
		f.rollingUpdate(fencepost(r), "1")
	}
	f.d.Spec.Paused = r.Intn(10) == 0
	if r.Intn(5) == 0 {
		f.d.Spec.MinReadySeconds = int32(1 + r.Intn(10))
	}
	created := int64(0)
	for i := range r.Intn(3) {
		desired, max := f.scaledAt(replicas)
		f.addRS(rsOpts{image: fmt.Sprintf("app:v%d", i+1), replicas: 0, revision: int64(i + 1), created: created, desired: desired, max: max})
		created += int64(1 + r.Intn(100))
	}
	stale := replicas + int32(1+r.Intn(10))
	if r.Intn(2) == 0 {
		stale = int32(r.Intn(int(replicas)))
	}
	desired, max := f.scaledAt(stale)
	o := rsOpts{image: "app:v9", replicas: replicas, available: int32(r.Intn(int(replicas))), revision: 9, created: created, desired: desired, max: max}
	if r.Intn(4) == 0 {
		o.statusReplicas = ptr.To(int32(r.Intn(int(replicas) + 2)))
		o.available = min(o.available, *o.statusReplicas)
	}
	f.addRS(o)
	return f.finish(false)
}
