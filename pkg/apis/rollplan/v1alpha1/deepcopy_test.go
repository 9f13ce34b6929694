package v1alpha1

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

var (
	t0 = time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	// fixtures build each kind fresh, every slice, map and pointer of this package's types
	// filled (TestFixturesAreFilled checks it), so a shallow copy anywhere shows.
	fixtures = map[string]func() runtime.Object{
		"RolloutPlan":     func() runtime.Object { return rolloutPlan("web") },
		"RolloutPlanList": rolloutPlanList,
		"RolloutHistory":  rolloutHistory,
		"WorkloadHistory": workloadHistory,
		"DriveStatus":     driveStatus,
		"StatefulSetDrive": func() runtime.Object {
			return &StatefulSetDrive{TypeMeta: typeMeta("StatefulSetDrive"), Namespace: "shop", Name: "db", Replicas: 3, StartPartition: 3,
				Images: []string{"db=postgres:17"}, Steps: []PartitionStep{{Number: 1, From: 3, To: 2, PauseAfter: true}},
				Result: &StatefulSetDriveResult{Outcome: "Paused", Partition: 2, Reason: "paused after ordinal 2"}}
		},
		"RolloutStatus": func() runtime.Object { return rolloutStatus("web") },
		"RolloutStatusList": func() runtime.Object {
			return &RolloutStatusList{TypeMeta: typeMeta("RolloutStatusList"), Items: []RolloutStatus{*rolloutStatus("web"), *rolloutStatus("api")}}
		},
		"WorkloadStatus": func() runtime.Object { return workloadStatus("db") },
		"WorkloadStatusList": func() runtime.Object {
			return &WorkloadStatusList{TypeMeta: typeMeta("WorkloadStatusList"), Items: []WorkloadStatus{*workloadStatus("db"), *workloadStatus("cache")}}
		},
	}
)

func rolloutStatus(name string) *RolloutStatus {
	at := metav1.NewTime(t0.Truncate(time.Second)) // metav1.Time keeps seconds
	return &RolloutStatus{
		TypeMeta: typeMeta("RolloutStatus"),
		Deployment: StatusDeployment{Namespace: "shop", Name: name, Replicas: 10, Strategy: "RollingUpdate", MaxSurgePods: 3,
			MaxUnavailablePods: 2, ProgressDeadlineSeconds: ptr.To[int32](600)},
		ObservedAt: at, Phase: "Progressing", Message: "Waiting", Step: 3, Steps: 6, NewReplicaSet: name + "-7d9f", Revision: 2,
		ReplicaSets: []StatusReplicaSet{{Name: name + "-7d9f", Revision: 2, New: true, Replicas: 5, Current: 5, Ready: 2, Available: 2}},
		Next:        &StatusWrite{ReplicaSet: name + "-5c4b", From: 8, To: 3},
		Waiting:     "2 of 5 new pods available", StartedAt: &at, CompletedAt: &at,
		Elapsed: &metav1.Duration{Duration: time.Minute}, LastProgressAt: &at, DeadlineAt: &at,
		ETA: &metav1.Duration{Duration: time.Minute}, ETABasis: "pods Ready after 2s", Warning: "near", HeldBy: "drive", PlanError: "none",
		Stalled:    []StatusStall{{Reason: "ImagePullBackOff", Pods: 2, Message: "Back-off pulling image", Restarts: 1, Since: &at, Object: name + "-7d9f-x"}},
		FailedFast: true,
		Feasibility: &PlanFeasibility{Checked: []string{"quota"}, Unchecked: []PlanUnchecked{{Check: "capacity", Reason: "forbidden to list nodes"}}, Stall: &PlanStall{Step: 1, Reason: "Quota", Message: "exceeded quota: pods",
			Objects: []string{"resourcequota/pods"}}, Findings: []PlanFinding{{Check: "quota", Step: 1, Severity: "Stall", Message: "1 refused", Object: "resourcequota/pods"}}},
	}
}

func workloadStatus(name string) *WorkloadStatus {
	at := metav1.NewTime(t0.Truncate(time.Second))
	return &WorkloadStatus{
		TypeMeta: typeMeta("WorkloadStatus"), Workload: StatusWorkload{Kind: "StatefulSet", Namespace: "shop", Name: name},
		ObservedAt: at, Message: "Waiting for 1 pods to be ready...", Updated: 1, Total: 3, UpdateRevision: name + "-7d9f",
		Next:    []WorkloadPodOperation{{Action: "Delete", Pod: name + "-1", Revision: name + "-5c4b"}},
		Waiting: "pods to become Ready: " + name + "-2", ProgressError: "none",
		Stalled: []StatusStall{{Reason: "FailedCreate", Pods: 1, Message: "exceeded quota", Since: &at, Object: name}}, FailedFast: true,
		Feasibility: &PlanFeasibility{Checked: []string{"quota"}, Unchecked: []PlanUnchecked{{Check: "capacity", Reason: "forbidden to list nodes"}}, Stall: &PlanStall{Step: 1, Reason: "Quota", Message: "exceeded quota: pods",
			Objects: []string{"resourcequota/pods"}}, Findings: []PlanFinding{{Check: "quota", Step: 1, Severity: "Stall", Message: "1 refused", Object: "resourcequota/pods"}}},
		ETA: &metav1.Duration{Duration: time.Minute}, ETABasis: "pods Ready after 2s",
	}
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: SchemeGroupVersion.String(), Kind: kind}
}

func rolloutPlan(name string) *RolloutPlan {
	return &RolloutPlan{
		TypeMeta:   typeMeta("RolloutPlan"),
		Deployment: PlanDeployment{Namespace: "shop", Name: name, Replicas: 10, RevisionHistoryLimit: ptr.To[int32](2), ProgressDeadlineSeconds: ptr.To[int32](600)},
		Strategy:   PlanStrategy{Type: "RollingUpdate", MaxSurge: "25%", MaxUnavailable: "25%", MaxSurgePods: 3, MaxUnavailablePods: 2},
		Readiness:  "batched",
		NewReplicaSet: PlanNewReplicaSet{Name: name + "-7d9f", PodTemplateHash: "7d9f", Revision: 2, Created: true,
			PreviousRevision: 1, RevisionHistory: "1", CollisionCount: ptr.To[int32](1)},
		ReplicaSets: []PlanReplicaSet{{Name: name + "-5c8b", Revision: 1, InitialReplicas: 10, InitialAvailable: 10}},
		Steps: []PlanStep{{Step: 1, ReplicaSet: name + "-7d9f", From: 0, To: 3, Create: true, Decision: "ScaleUpNewReplicaSet",
			Wait: "PodsAvailable", Sync: 1, ReplicaSets: map[string]int32{name + "-7d9f": 3, name + "-5c8b": 10}, Total: 13, Available: 10,
			At: &metav1.Duration{Duration: 2 * time.Second}}},
		Outcome:  "Complete",
		Cleanup:  []PlanCleanup{{Name: name + "-1111", Revision: 0, RollbackTarget: true}},
		Syncs:    4,
		Warnings: []string{"the template was defaulted client-side"},
		Timing: &PlanTiming{Source: "pods", ReadyAfterMin: metav1.Duration{Duration: time.Second},
			ReadyAfterMedian: metav1.Duration{Duration: 2 * time.Second}, ReadyAfterMax: metav1.Duration{Duration: 3 * time.Second},
			MinReadySeconds: 5, Samples: 7, ReplicaSets: []string{name + "-5c8b"},
			SyncLatency: metav1.Duration{Duration: 300 * time.Millisecond}, SyncLatencySource: "rollout",
			SyncLatencyReplicaSet: name + "-5c8b", SyncLatencyTook: &metav1.Duration{Duration: 9 * time.Second},
			SyncLatencyModelled: &metav1.Duration{Duration: 8 * time.Second}},
		Duration:           &metav1.Duration{Duration: 4 * time.Second},
		ProgressDeadlineAt: &metav1.Duration{Duration: 10 * time.Minute},
		Manifest:           &PlanManifest{Source: "web.yaml", Change: "Update"},
		Config: &PlanConfig{Decision: "restart", Reason: "first sight: possibly stale", RecordedIn: "template",
			PossiblyStaleSince: &metav1.Time{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
			References: []PlanConfigReference{{Kind: "ConfigMap", Name: "app", AllKeys: true, Keys: []string{"a"}, Optional: true, State: "possibly-stale",
				Evidence: &PlanConfigEvidence{DataWrittenAt: metav1.Time{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}, WrittenBy: "kubectl-edit",
					ReplicaSet: name + "-5c8b", OldestPodCreatedAt: metav1.Time{Time: time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)}}}}},
		Feasibility: &PlanFeasibility{Checked: []string{"quota"}, Unchecked: []PlanUnchecked{{Check: "capacity", Reason: "forbidden to list nodes"}},
			Stall:    &PlanStall{Step: 1, Reason: "Quota", Message: "exceeded quota: compute", Objects: []string{"resourcequota/compute"}},
			Findings: []PlanFinding{{Check: "quota", Step: 1, Severity: "Stall", Message: "1 refused", Object: "resourcequota/compute"}}},
		Workload:       &PlanWorkload{Kind: "DaemonSet", Namespace: "ns", Name: name, Strategy: "RollingUpdate"},
		UpdateRevision: name + "-85688477c5", UpdateRevisionNumber: 2,
		PodOperations:    []PlanPodOperation{{Step: 1, Action: "Delete", Pod: name + "-a", Node: "a", Revision: name + "-v1", RevisionNumber: 1, At: &metav1.Duration{Duration: 4 * time.Second}}},
		WaitingForDelete: []string{name + "-b"},
		Nodes:            []PlanNode{{Name: "gpu", Reason: "taint gpu:NoSchedule not tolerated"}},
	}
}

func rolloutPlanList() runtime.Object {
	return &RolloutPlanList{
		TypeMeta: typeMeta("RolloutPlanList"),
		ListMeta: metav1.ListMeta{ResourceVersion: "7", Continue: "next", RemainingItemCount: ptr.To[int64](3)},
		Items:    []RolloutPlan{*rolloutPlan("web"), *rolloutPlan("api")},
	}
}

func workloadHistory() runtime.Object {
	return &WorkloadHistory{
		TypeMeta: typeMeta("WorkloadHistory"),
		Workload: HistoryWorkload{Kind: "StatefulSet", Namespace: "shop", Name: "db", UpdateStrategy: "RollingUpdate",
			RevisionHistoryLimit: ptr.To[int32](2), TemplateRevision: ptr.To[int64](3), CurrentRevision: "db-1", UpdateRevision: "db-3"},
		CleanupAtNextRollout: []int64{1},
		Revisions: []WorkloadRevision{{
			Revision: 3, ControllerRevision: "db-3", Hash: "3", Images: []string{"postgres:17"},
			CreationTimestamp: metav1.NewTime(t0.Truncate(time.Second)), ChangeCause: "image", Pods: 2, ReadyPods: 1, InTemplate: true,
			Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "postgres:17", Args: []string{"-c"}}}},
			},
		}},
	}
}

func rolloutHistory() runtime.Object {
	return &RolloutHistory{
		TypeMeta:             typeMeta("RolloutHistory"),
		Deployment:           HistoryDeployment{Namespace: "shop", Name: "web", RevisionHistoryLimit: ptr.To[int32](2), CurrentRevision: ptr.To[int64](5)},
		CleanupAtNextRollout: []int64{1, 2},
		CleanupError:         "none",
		Orphans:              []string{"web-orphan"},
		Unrevisioned:         []string{"web-bad"},
		Revisions: []HistoryRevision{{
			Revision: 5, EarlierRevisions: []int64{3}, ReplicaSet: "web-7d9f", PodTemplateHash: "7d9f",
			Images: []string{"nginx:1.19"}, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
			CreationTimestamp: metav1.NewTime(t0.Truncate(time.Second)), ChangeCause: "image", Current: true,
			Config: []string{"ConfigMap/settings"},
			Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.19", Args: []string{"-g"}}}},
			},
		}},
	}
}

func driveStatus() runtime.Object {
	maxSurge, maxUnavailable := intstr.FromString("25%"), intstr.FromInt32(1)
	scale := func(name string, from, to int32) DriveScale {
		return DriveScale{Name: name, Old: 0, From: from, To: to}
	}
	return &DriveStatus{
		TypeMeta:  typeMeta("DriveStatus"),
		Namespace: "shop", Name: "web", Held: true, Paused: true, Strategy: "Recreate",
		State: &DriveState{
			Version: 1, PlanID: "01297f449739", Phase: "Forward",
			OriginalStrategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge, MaxUnavailable: &maxUnavailable}},
			TargetHash: "7d9f", NewReplicaSet: "web-7d9f", PreviousReplicaSet: "web-5c8b", Revision: 2,
			Replicas: 10, MaxSurge: 3, MaxUnavailable: 1, Step: 1, Steps: 3, Generation: 4,
			Holder: "alice@host pid 1/ab", LeaseExpires: ptr.To(NewTimestamp(t0.Add(time.Minute))),
			StartedAt: NewTimestamp(t0), UpdatedAt: NewTimestamp(t0.Add(time.Second)),
			HeldSince: ptr.To(NewTimestamp(t0.Add(2 * time.Second))), HeldReason: "--until-step 1 reached",
		},
		Edits:       []string{"spec.paused set to false"},
		ReplicaSets: []DriveReplicaSet{{Name: "web-7d9f", Role: "new", Revision: 2, Replicas: 3, Images: []string{"nginx:1.19"}}},
		Bounds:      &DriveBounds{Replicas: 10, MaxSurge: 3, MaxUnavailable: 1},
		Next: &DriveStep{Number: 2, New: scale("web-7d9f", 3, 8), WaitAvailable: 8, Old: []DriveScale{scale("web-5c8b", 5, 1)},
			Pods: 13, AvailableAfter: 9, KeptOld: true,
			After: DriveStart{New: DriveCounts{Name: "web-7d9f", Replicas: 8, Available: 8}, NewExists: true,
				Old: []DriveCounts{{Name: "web-5c8b", Replicas: 1, Available: 1}}}},
		StepsLeft: 2,
		StatefulSet: &StatefulSetDriveStatus{Holder: "bob@host pid 2/cd", LeaseExpires: ptr.To(NewTimestamp(t0.Add(time.Minute))), LeaseValid: true,
			Partition: 1, Replicas: 3, UpdatedReplicas: 2, ReadyReplicas: 3, CurrentRevision: "db-1", UpdateRevision: "db-2", Strategy: "RollingUpdate"},
	}
}

// TestDeepCopyIsDeep mutates every reachable field of a copy and checks the original is
// unchanged (a shared slice, map or pointer would carry the mutation over).
func TestDeepCopyIsDeep(t *testing.T) {
	for kind, fixture := range fixtures {
		t.Run(kind, func(t *testing.T) {
			want, orig := fixture(), fixture()
			cp := orig.DeepCopyObject()
			if diff := cmp.Diff(want, cp); diff != "" {
				t.Fatalf("copy differs from the original (-want +got):\n%s", diff)
			}
			mutate(reflect.ValueOf(cp))
			if cmp.Equal(want, cp) {
				t.Fatal("mutate changed nothing: the test would not see a shallow copy")
			}
			if diff := cmp.Diff(want, orig); diff != "" {
				t.Errorf("mutating the copy changed the original (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSchemeRoundTrip encodes each kind with the scheme's JSON and YAML serializers and
// decodes it back to the same Go type and value.
func TestSchemeRoundTrip(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	codecs := serializer.NewCodecFactory(scheme)
	for _, mediaType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeYAML} {
		info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
		if !ok {
			t.Fatalf("no serializer for %s", mediaType)
		}
		encoder := codecs.EncoderForVersion(info.Serializer, SchemeGroupVersion)
		for kind, fixture := range fixtures {
			t.Run(mediaType+"/"+kind, func(t *testing.T) {
				data, err := runtime.Encode(encoder, fixture())
				if err != nil {
					t.Fatalf("encode: %v", err)
				}
				got, gvk, err := codecs.UniversalDeserializer().Decode(data, nil, nil)
				if err != nil {
					t.Fatalf("decode: %v\n%s", err, data)
				}
				if gvk.Kind != kind || gvk.GroupVersion() != SchemeGroupVersion {
					t.Errorf("decoded as %v, want %s in %v", gvk, kind, SchemeGroupVersion)
				}
				if diff := cmp.Diff(fixture(), got); diff != "" {
					t.Errorf("round trip (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestFixturesAreFilled keeps the fixtures honest as fields are added: every pointer, slice
// and map of this package's types is set and non-empty.
func TestFixturesAreFilled(t *testing.T) {
	pkg := reflect.TypeFor[RolloutPlan]().PkgPath()
	for kind, fixture := range fixtures {
		var walk func(path string, v reflect.Value)
		walk = func(path string, v reflect.Value) {
			switch v.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Map:
				if v.IsNil() || (v.Kind() != reflect.Pointer && v.Len() == 0) {
					t.Errorf("%s: %s is empty", kind, path)
					return
				}
			}
			switch v.Kind() {
			case reflect.Pointer:
				walk(path, v.Elem())
			case reflect.Slice:
				walk(path+"[0]", v.Index(0))
			case reflect.Struct:
				if v.Type().PkgPath() != pkg {
					return
				}
				for i := range v.NumField() {
					walk(path+"."+v.Type().Field(i).Name, v.Field(i))
				}
			}
		}
		walk(kind, reflect.ValueOf(fixture()))
	}
}

// mutate changes every settable leaf reachable from v: strings get a suffix, numbers grow,
// booleans flip, times move an hour; it descends into pointers, slices, maps and structs.
func mutate(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			mutate(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			mutate(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			mutate(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			if v.CanSet() {
				v.Set(reflect.ValueOf(t.Add(time.Hour)))
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				mutate(v.Field(i))
			}
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(v.String() + "-mutated")
		}
	case reflect.Bool:
		if v.CanSet() {
			v.SetBool(!v.Bool())
		}
	case reflect.Int, reflect.Int32, reflect.Int64:
		if v.CanSet() {
			v.SetInt(v.Int() + 1)
		}
	}
}
