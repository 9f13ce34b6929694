package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

func TestHistoryFleet(t *testing.T) {
	sf := fleetStateFile(t)
	out, errOut, code := runRoot(t, "", "history", "web", "api", "-n", "shop", "--state-file", sf)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	sections := strings.Split(out, "\n\ndeployment.apps/")
	if len(sections) != 2 || !strings.HasPrefix(sections[0], "deployment.apps/web (namespace shop)") || !strings.HasPrefix(sections[1], "api (namespace shop)") {
		t.Errorf("sections:\n%s", out)
	}
	// Each section is the history of that Deployment alone, as `history NAME` prints it.
	one, _, _ := runRoot(t, "", "history", "api", "-n", "shop", "--state-file", sf)
	if "deployment.apps/"+sections[1] != one {
		t.Errorf("api's section:\n%s\nwant\n%s", "deployment.apps/"+sections[1], one)
	}

	out, _, code = runRoot(t, "", "history", "deployment", "web", "db", "-n", "shop", "--state-file", sf, "-o", "json")
	var l struct {
		APIVersion, Kind string
		Items            []struct {
			Kind       string
			Deployment struct{ Name string }
			Revisions  []struct{ Revision int64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	var got []string
	for _, it := range l.Items {
		got = append(got, it.Kind+" "+it.Deployment.Name)
	}
	if d := cmp.Diff([]string{"RolloutHistory web", "RolloutHistory db"}, got); d != "" || l.Kind != "List" || l.APIVersion != "v1" || len(l.Items[0].Revisions) != 2 {
		t.Errorf("%s %s (-want +got):\n%s", l.APIVersion, l.Kind, d)
	}

	out, errOut, code = runRoot(t, "", "history", "web", "gone", "-n", "shop", "--state-file", sf)
	if code != ExitError || !strings.HasPrefix(out, "deployment.apps/web") || !strings.HasPrefix(errOut, "error: deployment.apps/gone: ") {
		t.Errorf("a missing one: exit %d\n%s\n%s", code, out, errOut)
	}
	_, errOut, code = runRoot(t, "", "history", "web", "api", "--revision", "1", "--state-file", sf)
	if code != ExitError || errOut != "error: --revision and --diff show one Deployment's revisions: name one Deployment\n" {
		t.Errorf("--revision over many: exit %d, %q", code, errOut)
	}
}

// TestHistoryFleetLive: -l reads with one LIST of Deployments and one of ReplicaSets.
func TestHistoryFleetLive(t *testing.T) {
	c := fake.NewClientset(fleetObjects()...)
	streams, out, errOut := testStreams()
	o := NewHistoryOptions(streams)
	o.Now = func() time.Time { return historyNow }
	o.Fleet.Selection = &target.Selection{Many: true, Selector: "tier=front", Namespace: "shop", ChunkSize: 500}
	o.Fleet.Client = clientOf(c)
	if err := o.Run(context.Background()); err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if n := strings.Count(out.String(), "deployment.apps/"); n != 2 {
		t.Errorf("%d sections:\n%s", n, out)
	}
	if len(c.Actions()) != 2 {
		t.Errorf("%d requests: %v", len(c.Actions()), c.Actions())
	}
}

func TestDriveStatusFleet(t *testing.T) {
	held, _ := newDriveStatusTest(t)
	c := fake.NewClientset(fleetObjects()...)
	st, err := held.Client()
	if err != nil {
		t.Fatal(err)
	}
	// web of namespace default, held by drive, beside the fleet of shop and bank.
	ds, _ := st.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{})
	rss, _ := st.AppsV1().ReplicaSets("default").List(context.Background(), metav1.ListOptions{})
	_ = c.Tracker().Add(ds)
	for i := range rss.Items {
		_ = c.Tracker().Add(&rss.Items[i])
	}
	streams, out, errOut := testStreams()
	o := NewDriveStatusOptions(streams)
	o.Now = func() time.Time { return driveStatusNow }
	o.Fleet.Selection = &target.Selection{Many: true, AllNamespaces: true, ChunkSize: 500}
	o.Fleet.Client = clientOf(c)
	if err := o.Run(context.Background()); err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "NAMESPACE DEPLOYMENT HELD DRIVER STEP NEW REPLICASET PROBLEM" {
		t.Errorf("header %q", lines[0])
	}
	if f := strings.Fields(lines[2]); strings.Join(f[:10], " ") != "default web yes, rolling out alice@host pid 1/ab 1 of" {
		t.Errorf("held line %q", lines[2])
	}
	if f := strings.Fields(lines[1]); strings.Join(f, " ") != "bank ledger no - - - -" {
		t.Errorf("not held line %q", lines[1])
	}

	out.Reset()
	o.Output.Output = "json"
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var l struct {
		Kind  string
		Items []struct {
			Kind, Namespace, Name string
			Held                  bool
		}
	}
	if err := json.Unmarshal([]byte(out.String()), &l); err != nil || l.Kind != "List" || len(l.Items) != 5 || l.Items[1].Kind != "DriveStatus" || !l.Items[1].Held {
		t.Errorf("%v: %s", err, out)
	}
}

func TestDriveRefusesMany(t *testing.T) {
	kc := kubeconfig(t, "http://127.0.0.1:1")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-l", "app=web", "--image", "*=x:1"}, "error: -l app=web selects Deployments: drive works on one Deployment per run; run it once per Deployment (deploy/NAME)\n"},
		{[]string{"--all"}, "error: --all selects every Deployment in the namespace: drive works on one Deployment per run; run it once per Deployment (deploy/NAME)\n"},
		{[]string{"web", "api"}, "error: 2 Deployments given ([web api]): drive works on one Deployment per run; run it once per Deployment (deploy/NAME)\n"},
		{[]string{"deploy/web", "deploy/api", "--yes"}, "error: 2 Deployments given ([web api]): drive works on one Deployment per run; run it once per Deployment (deploy/NAME)\n"},
	} {
		_, errOut, code := runRoot(t, "", append([]string{"drive", "--kubeconfig", kc}, tc.args...)...)
		if code != ExitError || errOut != tc.want {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestFleetFailuresName: the read-only verbs name a failed Deployment as the writing verbs do
// (printer.PrintFailure), with its namespace under -A, and the exit line names it the same.
func TestFleetFailuresName(t *testing.T) {
	failed := []pipeline.Member{
		{Ref: target.Ref{Namespace: "shop", Name: "web"}, Err: errors.New("boom")},
		{Ref: target.Ref{Namespace: "bank", Name: "ledger"}, Err: errors.New("bust\nmore")},
	}
	for _, tc := range []struct {
		sel          target.Selection
		want, wantEx string
	}{
		{target.Selection{Many: true, Selector: "a=b", Namespace: "shop"},
			"error: deployment.apps/web: boom\nerror: deployment.apps/ledger: bust\n",
			"2 Deployment(s) failed: deployment.apps/web, deployment.apps/ledger"},
		{target.Selection{Many: true, AllNamespaces: true},
			"error: deployment.apps/web (namespace shop): boom\nerror: deployment.apps/ledger (namespace bank): bust\n",
			"2 Deployment(s) failed: deployment.apps/web (namespace shop), deployment.apps/ledger (namespace bank)"},
	} {
		var b strings.Builder
		err := fleetExit(printer.PrintFailures(&b, failed, tc.sel.AllNamespaces), 0, false)
		if b.String() != tc.want {
			t.Errorf("lines %q, want %q", b.String(), tc.want)
		}
		if err == nil || err.Error() != tc.wantEx {
			t.Errorf("exit %v, want %q", err, tc.wantEx)
		}
	}
}
