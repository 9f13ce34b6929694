package reloadcontroller

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// MetricsPrefix is the namespace of every metric of the controller.
const MetricsPrefix = "rollplan_reload"

// Metrics are the controller's Prometheus metrics (client_golang): the counters and gauges of
// XING's kubernetes-deployment-restart-controller (src/controller/metrics.go) under the
// rollplan_reload_ prefix, plus the change-to-restart latency histogram and a few of our own.
//
// The four per-object counters (annotation updates, restarts, refusals, failed rollouts)
// carry the label kind="Deployment"|"StatefulSet"|"DaemonSet" (KindLabel); the names keep
// XING's "deployment" for compatibility.
//
//	rollplan_reload_resource_versions_total             counter   distinct resourceVersions of ConfigMaps, Secrets and Deployments observed
//	rollplan_reload_configs_total                       gauge     ConfigMaps and Secrets referenced by tracked Deployments
//	rollplan_reload_deployments_total                   gauge     tracked (opted-in, selected) Deployments
//	rollplan_reload_deployment_annotation_updates_total counter   writes of the rollplan.dev/config-checksums annotation
//	rollplan_reload_deployment_restarts_total           counter   restarts made
//	rollplan_reload_changes_processed_total             counter   changes processed after their grace period
//	rollplan_reload_changes_waiting_total               gauge     changes waiting (grace period, pacing or retry)
//	rollplan_reload_change_to_restart_seconds           histogram from a change seen to its restart patch written
//	rollplan_reload_refusals_total                      counter   restarts refused (a non-optional reference missing)
//	rollplan_reload_rollouts_failed_total               counter   restart rollouts that did not complete (deadline, --timeout)
//	rollplan_reload_leader                              gauge     1 while this process runs the workers (holds the Lease)
//	rollplan_reload_first_sight_pod_lists_total         counter   LISTs of a Deployment's pods, made at first sight only
//
// XING's controller writes its annotation without a restart on first sight; ours is the
// pod template's, so every annotation update is a restart and the two counters move
// together.
type Metrics struct {
	registry          *prometheus.Registry
	resourceVersions  prometheus.Counter
	annotationUpdates *prometheus.CounterVec // by kind
	restarts          *prometheus.CounterVec // by kind
	changesProcessed  prometheus.Counter
	refusals          *prometheus.CounterVec // by kind
	rolloutsFailed    *prometheus.CounterVec // by kind
	podLists          prometheus.Counter
	latency           prometheus.Histogram
}

// KindLabel is the label of the per-object counters (restarts, annotation updates,
// refusals, failed rollouts): the object's kind, Deployment, StatefulSet or DaemonSet. The
// series names are XING's; the label was added when StatefulSets and DaemonSets joined.
const KindLabel = "kind"

var kinds = []string{"Deployment", "StatefulSet", "DaemonSet"}

// NewMetrics registers the counters and the histogram in reg (nil: a new registry); the
// gauges are registered by the Controller that uses them (Config.Metrics). One Metrics per
// Controller.
func NewMetrics(reg *prometheus.Registry) *Metrics {
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	counter := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: MetricsPrefix, Name: name, Help: help})
		reg.MustRegister(c)
		return c
	}
	byKind := func(name, help string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: MetricsPrefix, Name: name, Help: help}, []string{KindLabel})
		for _, k := range kinds {
			c.WithLabelValues(k) // every series exported from the start, at 0
		}
		reg.MustRegister(c)
		return c
	}
	m := &Metrics{
		registry:          reg,
		resourceVersions:  counter("resource_versions_total", "The total number of distinct resource versions observed."),
		annotationUpdates: byKind("deployment_annotation_updates_total", "The total number of deployment annotation updates."),
		restarts:          byKind("deployment_restarts_total", "The total number of deployment restarts triggered."),
		changesProcessed:  counter("changes_processed_total", "The total number of resource changes processed."),
		refusals:          byKind("refusals_total", "The total number of restarts refused because a non-optional ConfigMap or Secret is missing."),
		rolloutsFailed:    byKind("rollouts_failed_total", "The total number of restart rollouts that did not complete (progress deadline or --timeout)."),
		podLists:          counter("first_sight_pod_lists_total", "The total number of LISTs of a Deployment's pods made to judge it at first sight."),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: MetricsPrefix, Name: "change_to_restart_seconds",
			Help:    "Seconds from a ConfigMap, Secret or Deployment change seen by the informers to the restart patch written (grace period included).",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 16),
		}),
	}
	reg.MustRegister(m.latency)
	return m
}

// observe registers the gauges of c.
func (m *Metrics) observe(c *Controller) {
	gauge := func(name, help string, f func() float64) {
		m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: MetricsPrefix, Name: name, Help: help}, f))
	}
	gauge("configs_total", "The total number of tracked configs.", func() float64 { return float64(c.trackedConfigs()) })
	gauge("deployments_total", "The total number of tracked deployments.", func() float64 { return float64(c.trackedDeployments()) })
	gauge("changes_waiting_total", "The total number of changes waiting to be processed.", func() float64 {
		c.mu.Lock()
		defer c.mu.Unlock()
		return float64(len(c.pending))
	})
	gauge("leader", "1 while this process runs the restart workers (holds the Lease, or no leader election).", func() float64 {
		if c.Leading() {
			return 1
		}
		return 0
	})
}

// Registry is the registry the metrics are in (add process and Go collectors to it).
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// Handler serves the registry in Prometheus' text format (/metrics).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

func (c *Controller) trackedDeployments() int {
	n := 0
	for _, d := range c.informers.allDeployments() {
		if reload.OptedIn(d) {
			n++
		}
	}
	return n
}

func (c *Controller) trackedConfigs() int {
	seen := map[string]bool{}
	for _, d := range c.informers.allDeployments() {
		if !reload.OptedIn(d) {
			continue
		}
		for _, r := range reload.References(&d.Spec.Template) {
			seen[refIndexKey(d.Namespace, r.Kind, r.Name)] = true
		}
	}
	return len(seen)
}
