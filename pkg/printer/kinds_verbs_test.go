package printer

import (
	"errors"
	"strings"
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestKindsReportStatusShower: the human form prints only the blocks that changed since the
// last status shown, and warns once per status when where the rollout stands is unknown; -o
// of several without --watch prints nothing as it goes (one list at the end).
func TestKindsReportStatusShower(t *testing.T) {
	var out, errOut strings.Builder
	one := pipeline.KindsVerb{Verb: "status", Args: target.KindArgs{Refs: []target.KindRef{{Kind: target.KindStatefulSet, Name: "db"}}}}
	show := NewKindsReport(&out, &errOut, one, nil).StatusShower()
	s := stalledKind()
	for i := 0; i < 2; i++ {
		if err := show(s); err != nil {
			t.Fatal(err)
		}
	}
	var want strings.Builder
	for _, b := range KindStatusBlocks(s) {
		want.WriteString(b.Text)
	}
	if out.String() != want.String() || errOut.Len() != 0 {
		t.Errorf("the same status twice: printed\n%s\nwant it once:\n%s", out.String(), want.String())
	}
	s.ProgressErr = errors.New("no revision")
	_ = show(s)
	if !strings.Contains(errOut.String(), "warning: statefulset.apps/db: where the rollout stands is unknown: no revision\n") {
		t.Errorf("stderr: %q", errOut.String())
	}
	out.Reset()
	all := pipeline.KindsVerb{Verb: "status", Args: target.KindArgs{Kind: target.KindStatefulSet}, All: true, Output: "json"}
	if err := NewKindsReport(&out, &errOut, all, nil).StatusShower()(stalledKind()); err != nil || out.Len() != 0 {
		t.Errorf("-o json of several: %v %q", err, out.String())
	}
}

// TestKindsReportConfirm: the one question names the verb, the count, the kinds and the
// namespace; declining says nothing changed; -o sends the result lines to stderr.
func TestKindsReportConfirm(t *testing.T) {
	var out, errOut strings.Builder
	var asked string
	v := pipeline.KindsVerb{Verb: "restart", Args: target.KindArgs{Refs: []target.KindRef{{Kind: target.KindStatefulSet, Name: "a"}, {Kind: target.KindDaemonSet, Name: "b"}}}}
	r := NewKindsReport(&out, &errOut, v, func(q string) bool { asked = q; return false })
	if r.Confirm(2, "shop") || asked != `restart 2 StatefulSets and DaemonSets in namespace "shop" as previewed above? [y/N]: ` {
		t.Errorf("asked %q", asked)
	}
	r.Declined()
	if errOut.String() != "restart declined: nothing was changed.\n" || r.Result != &out {
		t.Errorf("declined: %q", errOut.String())
	}
	v.Output = "yaml"
	if r := NewKindsReport(&out, &errOut, v, nil); r.Result != &errOut {
		t.Error("-o yaml: the result lines are not on stderr")
	}
}

// TestPrintKindsPreviewAndResult: nothing selected is kubectl's line on stderr; a list's
// failures follow the table, one line each.
func TestPrintKindsPreviewAndResult(t *testing.T) {
	var out, errOut strings.Builder
	v := pipeline.KindsVerb{Namespace: "shop"}
	if err := PrintKindsPreview(&out, &errOut, v, &pipeline.KindsPreview{List: true}, false); err != nil || out.Len() != 0 || errOut.String() != "No resources found in shop namespace.\n" {
		t.Errorf("none: %v %q %q", err, out.String(), errOut.String())
	}
	errOut.Reset()
	p := &pipeline.KindsPreview{List: true, Rows: []pipeline.KindRow{{Workload: pipeline.WorkloadRef{Kind: "DaemonSet", Namespace: "shop", Name: "b"}, Err: errors.New("gone")}},
		Failed: []error{errors.New("daemonset/b (namespace shop): gone")}}
	if err := PrintKindsPreview(&out, &errOut, v, p, false); err != nil || !strings.HasPrefix(out.String(), "NAMESPACE") || errOut.String() != "error: daemonset/b (namespace shop): gone\n" {
		t.Errorf("a failed row: %v %q %q", err, out.String(), errOut.String())
	}
	errOut.Reset()
	if err := PrintKindsResult(&out, &errOut, v, &pipeline.KindsResult{}); err != nil || errOut.String() != "No resources found in shop namespace.\n" {
		t.Errorf("result, none: %v %q", err, errOut.String())
	}
}
