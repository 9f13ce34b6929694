package reloadcontroller

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// counterValue is the value of the metric name (a gauge, a histogram's sample count, or a
// counter summed over its kind label's series) in m's registry; -1 when it is not there.
func counterValue(t *testing.T, m *Metrics, name string) float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name || len(f.GetMetric()) == 0 {
			continue
		}
		mt := f.GetMetric()[0]
		switch {
		case mt.GetCounter() != nil:
			sum := 0.0 // over the kind label's series
			for _, m := range f.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
			return sum
		case mt.GetGauge() != nil:
			return mt.GetGauge().GetValue()
		case mt.GetHistogram() != nil:
			return float64(mt.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

func TestMetricsAreXINGsSetAndCountARestart(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1"})
	web := recorded(deployment("web", "app", ""), cm)
	other := recorded(deployment("other", "app", "a"), cm)
	h := start(t, Config{}, cm, web, other)
	h.eventually("the gauges", func() bool { return counterValue(t, h.metrics, "rollplan_reload_deployments_total") == 2 })
	families, err := h.metrics.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
	}
	// XING's kubernetes-deployment-restart-controller, src/controller/metrics.go, with our
	// prefix; then ours.
	for _, want := range []string{
		"rollplan_reload_resource_versions_total", "rollplan_reload_configs_total",
		"rollplan_reload_deployments_total", "rollplan_reload_deployment_annotation_updates_total",
		"rollplan_reload_deployment_restarts_total", "rollplan_reload_changes_processed_total",
		"rollplan_reload_changes_waiting_total", "rollplan_reload_change_to_restart_seconds",
		"rollplan_reload_refusals_total", "rollplan_reload_rollouts_failed_total", "rollplan_reload_leader",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("metric %s not registered (have %v)", want, names)
		}
	}
	if got := counterValue(t, h.metrics, "rollplan_reload_configs_total"); got != 1 {
		t.Errorf("configs_total %v, want 1 (one ConfigMap referenced)", got)
	}
	h.eventually("leader 1 without leader election", func() bool { return counterValue(t, h.metrics, "rollplan_reload_leader") == 1 })
	// The handlers see the first lists after the store has them: wait for the count.
	h.eventually("resource_versions_total 3 (a ConfigMap, two Deployments)", func() bool {
		return counterValue(t, h.metrics, "rollplan_reload_resource_versions_total") == 3
	})
	before := 3.0
	changed := configMap("app", map[string]string{"a": "2"})
	changed.ResourceVersion = "2"
	h.updateConfigMap(changed)
	h.eventually("two restarts", func() bool { return counterValue(t, h.metrics, "rollplan_reload_deployment_restarts_total") == 2 })
	for name, want := range map[string]float64{
		"rollplan_reload_deployment_annotation_updates_total": 2,
		"rollplan_reload_change_to_restart_seconds":           2, // samples
		"rollplan_reload_changes_processed_total":             2,
		"rollplan_reload_changes_waiting_total":               0,
	} {
		if got := counterValue(t, h.metrics, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// The fake clientset keeps the resourceVersion a write sends: the ConfigMap's is new, the
	// patched Deployments keep theirs.
	if after := counterValue(t, h.metrics, "rollplan_reload_resource_versions_total"); after != before+1 {
		t.Errorf("resource_versions_total %v -> %v, want one more (the ConfigMap's new version)", before, after)
	}
}

func TestServeMetricsHealthzReadyz(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1"})
	h := start(t, Config{}, cm, recorded(deployment("web", "app", ""), cm))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := Serve(ctx, "127.0.0.1:0", h.c, nil)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr.String() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get(path); code != 200 || strings.TrimSpace(body) != "ok" {
			t.Errorf("GET %s: %d %q, want 200 ok", path, code, body)
		}
	}
	code, body := get("/metrics")
	if code != 200 || !strings.Contains(body, "rollplan_reload_deployments_total 1") || !strings.Contains(body, "go_goroutines") {
		t.Errorf("GET /metrics: %d, body lacks rollplan_reload_deployments_total 1 or the Go collector:\n%s", code, body)
	}
}

func TestNewMetricsTwiceOnOneRegistryPanics(t *testing.T) {
	reg := prometheus.NewRegistry()
	NewMetrics(reg)
	defer func() {
		if recover() == nil {
			t.Error("registering the metrics twice in one registry did not panic")
		}
	}()
	NewMetrics(reg)
}

// kindCounter is the value of counter name's series kind="kind"; -1 when absent.
func kindCounter(t *testing.T, m *Metrics, name, kind string) float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, mt := range f.GetMetric() {
			for _, l := range mt.GetLabel() {
				if l.GetName() == KindLabel && l.GetValue() == kind {
					return mt.GetCounter().GetValue()
				}
			}
		}
	}
	return -1
}
