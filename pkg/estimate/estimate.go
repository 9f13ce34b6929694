package estimate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Source says where an Estimate comes from.
type Source string

const (
	// SourceFlag: --pod-ready-after DURATION or MIN..MAX.
	SourceFlag Source = "flag"
	// SourcePods: the live Deployment's own pods, creation to Ready.
	SourcePods Source = "pods"
)

// Estimate is how long pods take from creation to Ready (the Ready condition's
// lastTransitionTime), as the planner's timed model takes it. minReadySeconds is not in it:
// the planner adds the Deployment's after Ready.
type Estimate struct {
	Source Source
	// ReadyAfter is planner.Timing.ReadyAfter: pod k (in the order the plan's pods take
	// values) takes ReadyAfter[k % len]. Never empty, never negative.
	ReadyAfter []time.Duration
	// Min, Median and Max describe the distribution: for a flag, MIN, the middle and MAX
	// (all three the same for one DURATION); for pods, those of the samples.
	Min, Median, Max time.Duration
	// Samples is the number of pods measured (SourcePods), and ReplicaSets the names of the
	// ReplicaSets whose pods were measured, newest revision first.
	Samples     int
	ReplicaSets []string
	// Latency is the controllers' reaction time per write the model adds (zero: none).
	Latency Latency
}

// Timing returns the planner's time model for e.
func (e Estimate) Timing() *planner.Timing {
	return &planner.Timing{ReadyAfter: slices.Clone(e.ReadyAfter), SyncLatency: e.Latency.PerWrite}
}

// spreadOrder is the order in which pods take the 16 points of a spread: bit-reversed
// indexes (0, 8, 4, 12, ...), so that every run of consecutive pods covers the range evenly
// and the first two pods take its ends' middle and low end, not its extremes alone.
var spreadOrder = [16]int{0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15}

// Spread returns the 16 ready-after values a MIN..MAX range gives pods in turn: lo + (hi-lo)*j/15
// for j in spreadOrder, rounded to the millisecond; lo alone when lo == hi.
func Spread(lo, hi time.Duration) []time.Duration {
	if lo == hi {
		return []time.Duration{lo}
	}
	out := make([]time.Duration, len(spreadOrder))
	for i, j := range spreadOrder {
		// (hi-lo)*j/15 without overflowing for ranges of centuries.
		span, k := hi-lo, time.Duration(j)
		out[i] = (lo + span/15*k + span%15*k/15).Round(time.Millisecond)
	}
	return out
}

// ParseReadyAfter parses --pod-ready-after: a Go duration ("2s", "1m30s") or a range
// "MIN..MAX" ("1s..4s"), spread deterministically over pods (Spread). Errors name the flag,
// the value and the expected form.
func ParseReadyAfter(s string) (Estimate, error) {
	loText, hiText, ok := strings.Cut(s, "..")
	if !ok {
		hiText = loText
	}
	parse := func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d < 0 {
			return 0, fmt.Errorf("--pod-ready-after %q: want a non-negative duration such as 2s, or a range MIN..MAX such as 1s..4s", s)
		}
		return d, nil
	}
	lo, err := parse(loText)
	if err != nil {
		return Estimate{}, err
	}
	hi, err := parse(hiText)
	if err != nil {
		return Estimate{}, err
	}
	if hi < lo {
		return Estimate{}, fmt.Errorf("--pod-ready-after %q: MIN %s is above MAX %s", s, lo, hi)
	}
	return Estimate{Source: SourceFlag, ReadyAfter: Spread(lo, hi), Min: lo, Median: lo + (hi-lo)/2, Max: hi}, nil
}

// SampledReplicaSets returns the ReplicaSets whose pods FromPods measures: the two with the
// highest revisions (the current template before the change and the previous one), newest
// first; ReplicaSets with an invalid revision are skipped.
func SampledReplicaSets(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if _, err := deployutil.Revision(rs); err == nil {
			out = append(out, rs)
		}
	}
	slices.SortStableFunc(out, func(a, b *appsv1.ReplicaSet) int {
		ra, _ := deployutil.Revision(a)
		rb, _ := deployutil.Revision(b)
		switch {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return deployutil.ByCreationTimestamp(b, a)
	})
	return out[:min(2, len(out))]
}

// ErrNoSamples is returned by FromPods when no pod of the sampled ReplicaSets is Ready.
var ErrNoSamples = errors.New("no Ready pod to measure")

// FromPods measures, for every pod controlled by one of rss (a controller ownerReference to
// its UID) whose Ready condition is True, the time from its creationTimestamp to the Ready
// condition's lastTransitionTime (second precision, as the API server stores both), and
// returns their distribution: ReadyAfter takes the samples' quantiles 10%..90% in
// spreadOrder (an outlier, such as a pod that waited for a node, moves no more than its
// share), Min/Median/Max the samples'. A pod Ready before it was created (a clock skew) counts
// 0. It returns ErrNoSamples (wrapped) when no pod qualifies.
func FromPods(pods []*corev1.Pod, rss []*appsv1.ReplicaSet) (Estimate, error) {
	owners := map[types.UID]string{}
	var names []string
	for _, rs := range rss {
		owners[rs.UID] = rs.Name
		names = append(names, rs.Name)
	}
	var samples []time.Duration
	for _, p := range pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil {
			continue
		}
		if _, ok := owners[ref.UID]; !ok {
			continue
		}
		if d, ok := readyAfter(p); ok {
			samples = append(samples, d)
		}
	}
	if len(samples) == 0 {
		return Estimate{}, fmt.Errorf("%w of ReplicaSets %s", ErrNoSamples, strings.Join(names, ", "))
	}
	e := fromSamples(samples)
	e.ReplicaSets = names
	return e, nil
}

// FromWorkloadPods is FromPods for the pods of a StatefulSet or DaemonSet: every pod given
// (the caller passes the workload's own) whose Ready condition is True is a sample.
// Estimate.ReplicaSets stays empty. It returns ErrNoSamples (wrapped) when no pod is Ready.
func FromWorkloadPods(pods []*corev1.Pod, workload string) (Estimate, error) {
	var samples []time.Duration
	for _, p := range pods {
		if d, ok := readyAfter(p); ok {
			samples = append(samples, d)
		}
	}
	if len(samples) == 0 {
		return Estimate{}, fmt.Errorf("%w of %s", ErrNoSamples, workload)
	}
	return fromSamples(samples), nil
}

// fromSamples is the Estimate of samples (not empty): see FromPods.
func fromSamples(samples []time.Duration) Estimate {
	slices.Sort(samples)
	e := Estimate{
		Source:  SourcePods,
		Min:     samples[0],
		Median:  quantile(samples, 0.5),
		Max:     samples[len(samples)-1],
		Samples: len(samples),
	}
	for _, j := range spreadOrder {
		e.ReadyAfter = append(e.ReadyAfter, quantile(samples, 0.1+0.8*float64(j)/15))
	}
	return e
}

// readyAfter is a pod's creation-to-Ready time, if its Ready condition is True.
func readyAfter(p *corev1.Pod) (time.Duration, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type != corev1.PodReady {
			continue
		}
		if c.Status != corev1.ConditionTrue || c.LastTransitionTime.IsZero() || p.CreationTimestamp.IsZero() {
			return 0, false
		}
		return max(0, c.LastTransitionTime.Sub(p.CreationTimestamp.Time)), true
	}
	return 0, false
}

// quantile returns the q-quantile (0..1) of sorted samples, interpolated linearly between
// neighbours and rounded to the millisecond.
func quantile(sorted []time.Duration, q float64) time.Duration {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	frac := pos - float64(i)
	d := float64(sorted[i]) + frac*float64(sorted[i+1]-sorted[i])
	return time.Duration(d).Round(time.Millisecond)
}

// Pending returns planner.Timing.Pending for pods that exist but are not available at now:
// for every pod controlled by one of rss, by ReplicaSet name, in pod order: a pod Ready
// already (inside minReadySeconds) gives its Ready time, a pod not Ready yet its creation
// plus e.Median (at least now: a pod later than the estimate is taken to be Ready at once).
// Offsets are from now; pods available at now (Ready for at least minReadySeconds) are
// left out.
func Pending(pods []*corev1.Pod, rss []*appsv1.ReplicaSet, e Estimate, minReadySeconds int32, now time.Time) map[string][]time.Duration {
	owners := map[types.UID]string{}
	for _, rs := range rss {
		owners[rs.UID] = rs.Name
	}
	minReady := time.Duration(minReadySeconds) * time.Second
	var out map[string][]time.Duration
	for _, p := range pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil || owners[ref.UID] == "" {
			continue
		}
		var at time.Duration
		if ready, ok := readyTime(p); ok {
			if !ready.Add(minReady).After(now) {
				continue // available
			}
			at = ready.Sub(now)
		} else {
			at = max(0, p.CreationTimestamp.Add(e.Median).Sub(now))
		}
		if out == nil {
			out = map[string][]time.Duration{}
		}
		out[owners[ref.UID]] = append(out[owners[ref.UID]], at)
	}
	return out
}

// readyTime is when a pod's Ready condition became True, if it is True.
func readyTime(p *corev1.Pod) (time.Time, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time, true
		}
	}
	return time.Time{}, false
}
