package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

func TestKindsVerbValidate(t *testing.T) {
	sts := target.KindArgs{Kind: target.KindStatefulSet}
	one := target.KindArgs{Refs: []target.KindRef{{Kind: target.KindStatefulSet, Name: "db"}}}
	ds := target.KindArgs{Kind: target.KindDaemonSet, Refs: []target.KindRef{{Kind: target.KindDaemonSet, Name: "agent"}}}
	for _, tc := range []struct {
		name string
		v    KindsVerb
		want string // "": valid
	}{
		{"one named", KindsVerb{Verb: "history", Args: one}, ""},
		{"--all", KindsVerb{Verb: "restart", Args: sts, All: true}, ""},
		{"name and -l", KindsVerb{Args: one, Selector: "app=db"}, "name cannot be provided when a selector is specified"},
		{"name and -A", KindsVerb{Args: one, AllNamespaces: true}, "cannot be retrieved by name across all namespaces"},
		{"-l and --all", KindsVerb{Args: sts, Selector: "app=db", All: true}, "setting 'all' parameter but found a non empty selector"},
		{"nothing selected", KindsVerb{Args: sts}, "a StatefulSet is required: give statefulsets/NAME"},
		{"bad selector", KindsVerb{Args: sts, Selector: "app in"}, `the provided selector "app in" is not valid`},
		{"-o wide", KindsVerb{Args: one, Output: "wide"}, `unknown output format "wide"`},
		{"--revision -1", KindsVerb{Args: one, Revision: -1}, "--revision -1: revisions are positive numbers"},
		{"--timeout without --watch", KindsVerb{Args: one, Timeout: time.Second}, "--timeout needs --watch"},
		{"--timeout -1s", KindsVerb{Args: one, Timeout: -time.Second, Watch: true}, "--timeout -1s: must be 0 (never) or more"},
		{"restart and undo", KindsVerb{Verb: "preview", Args: one, Change: KindChange{Restart: true, Undo: true}}, "--restart and --to-revision are two changes"},
		{"negative replicas", KindsVerb{Verb: "preview", Args: one, Change: KindChange{Replicas: ptr.To[int32](-1)}}, "--replicas and --partition must be 0 or more"},
		{"partition of a DaemonSet", KindsVerb{Verb: "preview", Args: ds, Change: KindChange{Partition: ptr.To[int32](1)}}, "are StatefulSet fields: drop them for DaemonSets"},
		{"partition of a StatefulSet", KindsVerb{Verb: "preview", Args: one, Change: KindChange{Partition: ptr.To[int32](1)}}, ""},
	} {
		err := tc.v.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestKindsVerbPreview: one object named is one plan; several, a list whose failed rows are
// named and counted; one object that cannot be planned is the error.
func TestKindsVerbPreview(t *testing.T) {
	src := NewKindFile(stateFixture(t))
	now := func() time.Time { return kindNow }
	ref := func(k target.Kind, name string) target.KindRef { return target.KindRef{Kind: k, Name: name} }
	preview := func(v KindsVerb) (*KindsPreview, error) {
		v.Verb, v.Namespace, v.ExplicitNamespace, v.Now = "preview", "ns", true, now
		if !v.Change.Restart {
			v.Change.Images = []string{"c=v2"}
		}
		return v.Preview(context.Background(), []KindSource{src}, []error{nil})
	}
	p, err := preview(KindsVerb{Args: target.KindArgs{Refs: []target.KindRef{ref(target.KindStatefulSet, "web")}}})
	if err != nil || p.List || len(p.Rows) != 1 || p.Rows[0].Plan == nil || p.Err != nil || p.Exit != KindsExitNone {
		t.Errorf("sts/web: %v %+v", err, p)
	}
	p, err = preview(KindsVerb{Args: target.KindArgs{Refs: []target.KindRef{ref(target.KindStatefulSet, "web"), ref(target.KindDaemonSet, "nope")}}})
	if err != nil || !p.List || len(p.Rows) != 2 || len(p.Failed) != 1 || !strings.Contains(p.Failed[0].Error(), `daemonset/nope (namespace ns): `) ||
		p.Err == nil || p.Err.Error() != "preview failed for 1 of 2" {
		t.Errorf("sts/web ds/nope: %v %+v", err, p)
	}
	if _, err = preview(KindsVerb{Args: target.KindArgs{Refs: []target.KindRef{ref(target.KindDaemonSet, "nope")}}}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("ds/nope: %v", err)
	}
	p, err = preview(KindsVerb{Args: target.KindArgs{Kind: target.KindDaemonSet}, All: true, Change: KindChange{Restart: true}})
	if err != nil || !p.List || len(p.Rows) != 1 || p.Rows[0].Workload.Name != "agent" || p.Err != nil {
		t.Errorf("ds --all: %v %+v", err, p)
	}
	p, err = preview(KindsVerb{Args: target.KindArgs{Kind: target.KindDaemonSet}, Selector: "tier=none"})
	if err != nil || len(p.Rows) != 0 || len(p.Failed) != 0 || p.Err != nil {
		t.Errorf("ds -l tier=none: %v %+v", err, p)
	}
}
