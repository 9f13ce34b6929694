package reloadcontroller

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// Figures of BenchmarkInformerMemory (issue 9): 5,000 ConfigMaps of 10 KiB each.
const (
	benchConfigMaps = 5000
	benchValueBytes = 10 << 10
)

// BenchmarkInformerMemory measures the heap the controller's ConfigMap cache retains for
// 5,000 ConfigMaps of 10 KiB each (two keys of 5 KiB), with DigestTransform ("transform")
// and with whole objects cached (KeepData, "whole-objects"), reported as MiB-retained and
// bytes/configmap: the heap in use (after a GC) once the informers synced, were stopped and
// the ConfigMaps were deleted from the fake clientset, minus the heap in use before any
// ConfigMap existed. The fake clientset's copies share their strings with the objects it
// holds, so only with those gone does the heap show what the cache alone keeps. Run it with
// -benchtime 1x (make bench-reload).
func BenchmarkInformerMemory(b *testing.B) {
	for _, keep := range []bool{false, true} {
		name := "transform"
		if keep {
			name = "whole-objects"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				retained := informerRetained(b, keep)
				b.ReportMetric(float64(retained)/(1<<20), "MiB-retained")
				b.ReportMetric(float64(retained)/benchConfigMaps, "bytes/configmap")
			}
		})
	}
}

func informerRetained(b *testing.B, keep bool) int64 {
	b.StopTimer()
	cs := fake.NewClientset()
	tracker := cs.Tracker()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	half := strings.Repeat("x", benchValueBytes/2)
	before := heapInUse()
	for i := range benchConfigMaps {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%05d", i), Namespace: ns, UID: types.UID(fmt.Sprintf("uid-%05d", i)), ResourceVersion: "1"},
			Data:       map[string]string{"a": strings.Clone(half), "b": strings.Clone(half)},
		}
		if err := tracker.Create(gvr, cm, ns); err != nil {
			b.Fatal(err)
		}
	}
	b.StartTimer()
	c, err := New(cs, Config{Namespace: ns, MaxConcurrent: 1, KeepData: keep})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.informers.start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), c.informers.synced()...) {
		b.Fatal("caches not synced")
	}
	b.StopTimer()
	if n := len(c.informers.configMaps.GetStore().List()); n != benchConfigMaps {
		b.Fatalf("cached %d ConfigMaps, want %d", n, benchConfigMaps)
	}
	cancel() // the informers stop; their store stays
	time.Sleep(100 * time.Millisecond)
	for i := range benchConfigMaps {
		if err := tracker.Delete(gvr, ns, fmt.Sprintf("cm-%05d", i)); err != nil {
			b.Fatal(err)
		}
	}
	if n := len(c.informers.configMaps.GetStore().List()); n != benchConfigMaps {
		b.Fatalf("cached %d ConfigMaps after the informers stopped, want %d", n, benchConfigMaps)
	}
	after := heapInUse()
	runtime.KeepAlive(c)
	runtime.KeepAlive(cs)
	return after - before
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
