package cmd

import (
	"bytes"
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

// historyNow is the clock of the history goldens: one hour after testutil.Epoch.
var historyNow = testutil.Epoch.Add(time.Hour)

// webFixture returns Deployment web (3 replicas of nginx:1.20, revision 5, resourceVersion
// 1234, revisionHistoryLimit 3) and the ReplicaSets a real sequence of changes leaves:
// revision 4 (was 1) nginx:1.18, revision 2 nginx:1.19, revision 3 the restart of 2, and
// revision 5 nginx:1.20 with the 3 pods. The Deployment has an annotation example.com/team
// set after revision 4 was made, and a last-applied-configuration.
func webFixture() (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	d := testutil.Deployment("web").Replicas(3).Image("nginx:1.20").Revision(5).
		RevisionHistoryLimit(3).ResourceVersion("1234").
		Annotation("kubernetes.io/change-cause", "image 1.20").Annotation("example.com/team", "payments").
		Annotation("kubectl.kubernetes.io/last-applied-configuration", `{"apiVersion":"apps/v1","kind":"Deployment"}`).
		Status(3, 3, 3, 3).Build()
	base := func(image string) *testutil.ReplicaSetBuilder {
		return testutil.ReplicaSetFor(testutil.Deployment("web").Replicas(3).Image(image).Build()).OwnedBy(d)
	}
	return d, []*appsv1.ReplicaSet{
		base("nginx:1.18").Created(1).Replicas(0).Revision(4).RevisionHistory("1").
			Annotation("kubernetes.io/change-cause", "create").Build(),
		base("nginx:1.19").Created(2).Replicas(0).Revision(2).
			Annotation("kubernetes.io/change-cause", "image 1.19").Build(),
		base("nginx:1.19").TemplateAnnotation("kubectl.kubernetes.io/restartedAt", "2024-01-01T00:03:00Z").
			Created(3).Replicas(0).Revision(3).Annotation("kubernetes.io/change-cause", "image 1.19").Build(),
		base("nginx:1.20").Created(4).Replicas(3).Revision(5).
			Annotation("kubernetes.io/change-cause", "image 1.20").Annotation("example.com/team", "payments").Build(),
	}
}

// fakeClient returns a fake clientset holding d and rss.
func fakeClient(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *fake.Clientset {
	objs := []runtime.Object{d}
	for _, rs := range rss {
		objs = append(objs, rs)
	}
	return fake.NewClientset(objs...)
}

// writes returns the fake's write actions (anything but get, list and watch).
func writes(c *fake.Clientset) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range c.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
		default:
			out = append(out, a)
		}
	}
	return out
}

// testStreams returns streams writing to two buffers.
func testStreams() (genericiooptions.IOStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}, &out, &errOut
}

// clientOf returns a Client func for c.
func clientOf(c kubernetes.Interface) func() (kubernetes.Interface, error) {
	return func() (kubernetes.Interface, error) { return c, nil }
}

// exit runs a command's Run as main does and returns the exit code and what HandleError
// printed.
func exit(run func(context.Context) error) (int, string) {
	err := run(context.Background())
	if err == nil {
		return ExitOK, ""
	}
	var b bytes.Buffer
	code := HandleError(&b, err)
	return code, b.String()
}

func mustRun(t *testing.T, run func(context.Context) error) {
	t.Helper()
	if err := run(context.Background()); err != nil {
		t.Fatal(err)
	}
}
