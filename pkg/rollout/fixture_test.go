package rollout

import (
	"os"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

// restartedAt is the restartedAt value of revision 3 in webHistory.
const restartedAt = "2024-01-01T00:03:00Z"

// webHistory returns Deployment web (3 replicas of nginx:1.20, revision 5) and the four
// ReplicaSets a real sequence of changes leaves behind:
//
//	created  1: nginx:1.18          revision 1, rolled back to later  -> revision 4 (history "1")
//	created  2: nginx:1.19          revision 2
//	created  3: nginx:1.19 restart  revision 3 (kubectl rollout restart)
//	created  4: nginx:1.20          revision 5, current, 3 pods
//
// The Deployment carries change-cause "image 1.20" and an annotation example.com/team that
// was set after revision 4's ReplicaSet was created (so a rollback drops it).
func webHistory(limit int32) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	d := testutil.Deployment("web").Replicas(3).Image("nginx:1.20").Revision(5).
		RevisionHistoryLimit(limit).ResourceVersion("1234").
		Annotation(ChangeCauseAnnotation, "image 1.20").Annotation("example.com/team", "payments").
		Status(3, 3, 3, 3).Build()
	base := func(image string) *testutil.ReplicaSetBuilder {
		t := testutil.Deployment("web").Replicas(3).Image(image).Build()
		return testutil.ReplicaSetFor(t).OwnedBy(d)
	}
	rss := []*appsv1.ReplicaSet{
		base("nginx:1.18").Created(1).Replicas(0).Revision(4).RevisionHistory("1").
			Annotation(ChangeCauseAnnotation, "create").Build(),
		base("nginx:1.19").Created(2).Replicas(0).Revision(2).
			Annotation(ChangeCauseAnnotation, "image 1.19").Build(),
		base("nginx:1.19").TemplateAnnotation(change.RestartedAtAnnotation, restartedAt).Created(3).Replicas(0).Revision(3).
			Annotation(ChangeCauseAnnotation, "image 1.19").Build(),
		base("nginx:1.20").Created(4).Replicas(3).Revision(5).
			Annotation(ChangeCauseAnnotation, "image 1.20").Annotation("example.com/team", "payments").Build(),
	}
	return d, rss
}

// byRevision returns the ReplicaSet of webHistory with revision r.
func byRevision(rss []*appsv1.ReplicaSet, r string) *appsv1.ReplicaSet {
	for _, rs := range rss {
		if rs.Annotations[deployutil.RevisionAnnotation] == r {
			return rs
		}
	}
	return nil
}

// templateOf returns rs's template without the pod-template-hash label.
func templateOf(rs *appsv1.ReplicaSet) corev1.PodTemplateSpec {
	t := rs.Spec.Template.DeepCopy()
	delete(t.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return *t
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

// testutilRS returns a ReplicaSet of d with image, created at minute created, replicas pods
// of which available are available, and the desired-/max-replicas annotations given.
func testutilRS(d *appsv1.Deployment, image string, created int, replicas, available int32, desired, maxReplicas string) *appsv1.ReplicaSet {
	t := d.DeepCopy()
	t.Spec.Template.Spec.Containers[0].Image = image
	return testutil.ReplicaSetFor(t).OwnedBy(d).Created(created).Replicas(replicas).Status(replicas, available, available).
		Revision(int64(created)).Annotation(deployutil.DesiredReplicasAnnotation, desired).Annotation(deployutil.MaxReplicasAnnotation, maxReplicas).Build()
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o600) }
