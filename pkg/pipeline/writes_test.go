package pipeline

import (
	"context"
	"errors"
	"reflect"
	"testing"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestWritesCheckConfirm: only a real run over several Deployments without --yes asks, and
// without a terminal it is refused with what to do.
func TestWritesCheckConfirm(t *testing.T) {
	yes, no := func() bool { return true }, func() bool { return false }
	for _, tc := range []struct {
		name     string
		w        Writes
		asks     bool
		refusing bool
	}{
		{"one Deployment", Writes{Verb: "restart", Terminal: no}, false, false},
		{"several, dry run", Writes{Verb: "restart", Several: true, DryRun: cmdutil.DryRunClient, Terminal: no}, false, false},
		{"several, --yes", Writes{Verb: "restart", Several: true, Yes: true, Terminal: no}, false, false},
		{"several, a terminal", Writes{Verb: "restart", Several: true, Terminal: yes}, true, false},
		{"several, no terminal", Writes{Verb: "restart", Several: true, Terminal: no}, true, true},
		{"several, no terminal check", Writes{Verb: "restart", Several: true}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.w.CheckConfirm()
			if tc.w.Asks() != tc.asks || (err != nil) != tc.refusing {
				t.Errorf("Asks %v, CheckConfirm %v; want %v, refusing %v", tc.w.Asks(), err, tc.asks, tc.refusing)
			}
			if want := "standard input is not a terminal, so restart cannot ask before changing several Deployments: pass --yes to restart them without asking, or --dry-run=client to preview only"; err != nil && err.Error() != want {
				t.Errorf("CheckConfirm = %q, want %q", err, want)
			}
		})
	}
}

// TestObjectsOf: the Refs in order, the Target's one when none and not several, none when
// several matched nothing.
func TestObjectsOf(t *testing.T) {
	one := target.Ref{Namespace: "shop", Name: "web"}
	refs := []target.Ref{{Namespace: "a", Name: "x"}, {Namespace: "b", Name: "y"}}
	if got, want := ObjectsOf(refs, one, true), []rollout.Object{{Namespace: "a", Name: "x"}, {Namespace: "b", Name: "y"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("refs: %v, want %v", got, want)
	}
	if got, want := ObjectsOf(nil, one, false), []rollout.Object{{Namespace: "shop", Name: "web"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("one: %v, want %v", got, want)
	}
	if got := ObjectsOf(nil, one, true); len(got) != 0 {
		t.Errorf("several, none matched: %v", got)
	}
}

// TestRefuseStall: a stalling plan is a StallError naming the step and reason only with
// --fail-on-stall.
func TestRefuseStall(t *testing.T) {
	stalls := &feasibility.Result{Stall: &feasibility.Stall{Step: 2, Reason: feasibility.ReasonQuota}}
	if err := RefuseStall(false, "web", stalls); err != nil {
		t.Errorf("without --fail-on-stall: %v", err)
	}
	if err := RefuseStall(true, "web", &feasibility.Result{}); err != nil {
		t.Errorf("no stall: %v", err)
	}
	var se *StallError
	err := RefuseStall(true, "web", stalls)
	if !errors.As(err, &se) || err.Error() != "deployment web stalls at step 2 (Quota): nothing written (--fail-on-stall)" {
		t.Errorf("stall: %v", err)
	}
}

// recordView records what RunWrites tells.
type recordView struct{ none, done, failed, declined []string }

func (v *recordView) NoneSelected(ns string)  { v.none = append(v.none, ns) }
func (v *recordView) Failed(r rollout.Result) { v.failed = append(v.failed, r.Name) }
func (v *recordView) Done(r rollout.Result)   { v.done = append(v.done, r.Name+" "+r.Operation) }
func (v *recordView) Declined()               { v.declined = append(v.declined, "declined") }

// TestRunWrites: none selected is told and not an error; several ask once (Confirm) and a
// declined answer writes nothing; a refused run asks nothing.
func TestRunWrites(t *testing.T) {
	applied := 0
	b := rollout.Batch[string]{
		Preview: func(_ context.Context, o rollout.Object) (string, error) { return o.Name, nil },
		Apply:   func(_ context.Context, s string) (string, error) { applied++; return "restarted", nil },
	}
	v := &recordView{}
	if err := RunWrites(context.Background(), &Writes{Verb: "restart", Namespace: "shop", Several: true}, b, v); err != nil || !reflect.DeepEqual(v.none, []string{"shop"}) {
		t.Errorf("none selected: %v %v", err, v.none)
	}
	objs := []rollout.Object{{Namespace: "shop", Name: "a"}, {Namespace: "shop", Name: "b"}}
	asked := 0
	w := &Writes{Verb: "restart", Objects: objs, Several: true, Terminal: func() bool { return true },
		Confirm: func(ready []rollout.Object, failed int) (bool, error) { asked++; return false, nil }}
	v = &recordView{}
	if err := RunWrites(context.Background(), w, b, v); err != nil || asked != 1 || applied != 0 || len(v.declined) != 1 {
		t.Errorf("declined: err %v asked %d applied %d view %+v", err, asked, applied, v)
	}
	w.Confirm = func([]rollout.Object, int) (bool, error) { asked++; return true, nil }
	v = &recordView{}
	if err := RunWrites(context.Background(), w, b, v); err != nil || asked != 2 || !reflect.DeepEqual(v.done, []string{"a restarted", "b restarted"}) {
		t.Errorf("confirmed: err %v asked %d view %+v", err, asked, v)
	}
	w.Terminal = nil
	if err := RunWrites(context.Background(), w, b, v); err == nil || asked != 2 || applied != 2 {
		t.Errorf("no terminal: err %v asked %d applied %d", err, asked, applied)
	}
}
