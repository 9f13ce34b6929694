package cmd

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// statusTwoNamespaces is default/web mid-rollout (statusMidRollout) and bank/ledger (3
// replicas) settled.
func statusTwoNamespaces() (*fake.Clientset, *appsv1.Deployment, []*appsv1.ReplicaSet) {
	d, rss := statusMidRollout("ReplicaSetUpdated")
	ledger := testutil.Deployment("ledger").Namespace("bank").Replicas(3).Status(3, 3, 3, 3).Build()
	objs := []runtime.Object{d, ledger, testutil.ReplicaSetFor(ledger).Revision(1).Available(3).Build()}
	for _, rs := range rss {
		objs = append(objs, rs)
	}
	return fake.NewClientset(objs...), d, rss
}

// newStatusAllTest is newStatusTest with -A (every namespace).
func newStatusAllTest(client *fake.Clientset) *StatusOptions {
	o, _ := newStatusTest(client)
	o.Selection = &target.Selection{Namespace: testutil.DefaultNamespace, Many: true, AllNamespaces: true}
	return o
}

// TestStatusAllNamespaces: -A reads every namespace through one watch cache (LISTs and
// watches of namespace ""), one line per Deployment with its namespace, sorted by namespace.
func TestStatusAllNamespaces(t *testing.T) {
	client, _, _ := statusTwoNamespaces()
	o := newStatusAllTest(client)
	o.Checks = "none" // the feasibility checks' LISTs are counted elsewhere
	out := &strings.Builder{}
	o.Out = out
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	mustRun(t, o.Run)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "bank/ledger  ") || !strings.Contains(lines[0], `deployment "ledger" successfully rolled out`) ||
		!strings.HasPrefix(lines[1], "default/web  step 3/6") {
		t.Errorf("want bank/ledger complete, then default/web at step 3/6, one line each:\n%s", out)
	}
	namespaces := map[string]bool{}
	for _, a := range client.Actions() {
		namespaces[a.GetVerb()+" "+a.GetResource().Resource+" ns="+a.GetNamespace()] = true
	}
	for _, want := range []string{"list deployments ns=", "list replicasets ns=", "list pods ns=", "watch deployments ns="} {
		if !namespaces[want] {
			t.Errorf("no %q request; requests: %v", want, namespaces)
		}
	}
	if len(namespaces) != 6 {
		t.Errorf("requests %v, want a LIST and a watch of deployments, replicasets and pods in namespace \"\" only", namespaces)
	}
}

// TestStatusAllNamespacesWatch: -A --watch follows both namespaces' rollouts, prints a line
// per change with its namespace and exits 0 once default/web completes.
func TestStatusAllNamespacesWatch(t *testing.T) {
	client, d, rss := statusTwoNamespaces()
	lines := watchToCompletion(t, newStatusAllTest(client), client, d, rss)
	// The first lines: both Deployments, by namespace; then only web's changes.
	var first []string
	for _, l := range lines {
		first = append(first, strings.SplitN(l, "  ", 2)[0])
	}
	if diff := cmp.Diff([]string{"bank/ledger", "default/web"}, first[:min(2, len(first))]); diff != "" || len(first) < 3 {
		t.Fatalf("want bank/ledger, default/web, then web's changes (-want +got):\n%s\n%s", diff, strings.Join(lines, "\n"))
	}
	lastRolledOut(t, lines, "default/web  ", "web")
}
