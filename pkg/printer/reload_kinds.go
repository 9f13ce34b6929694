package printer

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// PrintReloadKinds writes the human form of the StatefulSets and DaemonSets a reload
// assessed, after the Deployments' (PrintReload; after means a blank line first): one table (NAMESPACE,
// WORKLOAD as kubectl names it, CONFIG as for Deployments, ACTION), the refusals, then one
// line per restart naming what changed and how its controller rolls it. Nothing when kinds
// is empty. Names and states only: no config value and no checksum.
func PrintReloadKinds(w io.Writer, kinds []*reloadoneshot.KindTarget, after bool) error {
	if len(kinds) == 0 {
		return nil
	}
	if after {
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tWORKLOAD\tCONFIG\tACTION")
	for _, k := range kinds {
		cfg := configCell(k.Decision.Refs)
		if cfg == "" {
			cfg = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Workload.Meta().GetNamespace(), k.Name(), cfg, kindActionWord(k))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, k := range kinds {
		if k.Action == reload.ActionRefuse {
			fmt.Fprintf(w, "Refused:    %v\n", k.Decision.Refusal)
		}
	}
	for _, k := range kinds {
		if k.Action != reload.ActionRestart {
			continue
		}
		m := k.Workload.Meta()
		fmt.Fprintf(w, "\nRestart of %s %s/%s (%s): %s%s\n", strings.ToLower(string(k.Workload.Kind())), m.GetNamespace(), m.GetName(),
			kindChanged(k.Decision), kindRolls(k), kindReused(k.Reuse))
	}
	return nil
}

func kindActionWord(k *reloadoneshot.KindTarget) string {
	switch k.Action {
	case reload.ActionRefuse:
		return "refused"
	case reload.ActionRestart:
		return "restart"
	case reload.ActionAdopt:
		return "adopt (record, no restart)"
	}
	return "none"
}

// kindChanged is "changed: configmap/app, secret/db".
func kindChanged(d reload.Decision) string {
	var changed []string
	for _, s := range d.Refs {
		if s.State == reload.Changed || (s.State == reload.Missing && s.Ref.Optional && s.Recorded != "" && s.Recorded != reload.AbsentChecksum) {
			changed = append(changed, s.Ref.AnnotationKey())
		}
	}
	return "changed: " + strings.Join(changed, ", ")
}

// kindRolls says how the controller replaces the pods after the template changes.
func kindRolls(k *reloadoneshot.KindTarget) string {
	w := k.Workload
	switch {
	case w.UpdateStrategy() == "OnDelete":
		return "updateStrategy OnDelete: no pod is replaced until you delete it"
	case w.StatefulSet != nil:
		return "RollingUpdate: pods replaced highest ordinal first, down to the partition"
	default:
		return "RollingUpdate: node by node, within maxUnavailable and maxSurge"
	}
}

// PrintReloadKindResults writes kubectl's result line for each write of a reload's
// StatefulSets and DaemonSets ("statefulset.apps/db restarted", "... config checksums
// adopted", with the dry-run suffix) and returns the failures, in order.
func PrintReloadKindResults(w io.Writer, results []reloadoneshot.KindResult, suffix string) []error {
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
			continue
		}
		t := reloadoneshot.KindTarget{Workload: r.Workload}
		switch {
		case r.Restarted:
			fmt.Fprintf(w, "%s restarted%s\n", t.Name(), suffix)
		case r.Adopted:
			fmt.Fprintf(w, "%s config checksums adopted%s\n", t.Name(), suffix)
		}
	}
	return errs
}

// kindReused is "; reused: revision 1's ControllerRevision db-7d8f comes back (a config
// rollback); its revision becomes 3", or "" when the restart makes a new revision.
func kindReused(r *reloadoneshot.KindReuse) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("; reused: revision %d's ControllerRevision %s comes back (a config rollback); its revision becomes %d", r.PreviousRevision, r.Name, r.Revision)
}
