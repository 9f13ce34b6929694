package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// completeStatus reads status's flags for StatefulSets and DaemonSets: --checks,
// --pod-ready-after, --sync-latency, --fail-fast and --fail-fast-after.
func (o *KindsOptions) completeStatus(fl *pflag.FlagSet) error {
	after, _ := fl.GetDuration("fail-fast-after")
	if err := validateFailFast(after); err != nil {
		return err
	}
	cfg, err := pipeline.NewKindStatusConfig(flagString(fl, "checks"), flagString(fl, "pod-ready-after"), flagString(fl, "sync-latency"), flagBool(fl, "fail-fast"), after)
	cfg.Now = o.Now
	o.StatusConfig = cfg
	return err
}

// status shows each object's status in turn (pipeline.KindStatusReader.Follow); with --watch
// it follows each until done, as kubectl does. The error: kubectl's, ExitFailFast with
// --fail-fast, ExitTimedOut when --timeout passes first.
func (o *KindsOptions) status(ctx context.Context, client kubernetes.Interface, refs []target.KindRef) error {
	if o.Watch && o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	r := pipeline.NewKindStatusReader(func() (kubernetes.Interface, error) { return client, nil }, o.StatusConfig)
	var all []*pipeline.KindStatus
	var failed []string
	for _, ref := range refs {
		s, err := r.Follow(ctx, client, ref, o.Watch, o.kindShower())
		switch {
		case ctx.Err() != nil && o.Timeout > 0:
			return NewExitError(ExitTimedOut, fmt.Sprintf("timed out after %s waiting for the rollout of %s to finish", o.Timeout, ref))
		case err != nil:
			return err
		}
		all = append(all, s)
		if s.FailedFast {
			failed = append(failed, pipeline.KindFailFastMessage(s, o.StatusConfig.FailFastAfter))
			if o.Watch {
				break // as soon as one fails fast, as Deployment status does
			}
		}
	}
	if o.Output != "" && !o.Watch && len(all) > 1 {
		if err := printYAMLOrJSON(o.Out, o.Output, printer.NewWorkloadStatusList(all)); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return NewExitError(ExitFailFast, strings.Join(failed, "\nerror: "))
	}
	return nil
}

// kindShower returns how one object's statuses are shown: -o prints the WorkloadStatus at
// every change (one object, or --watch; several without --watch print one list at the end);
// the human form prints each block of printer.KindStatusBlocks that changed, and warns on
// stderr when where the rollout stands cannot be read.
func (o *KindsOptions) kindShower() func(*pipeline.KindStatus) error {
	last := map[string]bool{}
	var lastKey string
	var p printers.ResourcePrinter = &printers.JSONPrinter{}
	if o.Output == "yaml" {
		p = &printers.YAMLPrinter{} // one printer: "---" between the objects of a --watch
	}
	return func(s *pipeline.KindStatus) error {
		blocks := printer.KindStatusBlocks(s)
		if o.Output != "" {
			var key strings.Builder
			for _, b := range blocks {
				key.WriteString(b.Key + "\n")
			}
			if (!o.Watch && o.several()) || key.String() == lastKey {
				return nil
			}
			lastKey = key.String()
			return p.PrintObj(printer.NewWorkloadStatus(s), o.Out)
		}
		if s.ProgressErr != nil {
			fmt.Fprintf(o.ErrOut, "warning: %s: where the rollout stands is unknown: %v\n", s.Ref, s.ProgressErr)
		}
		seen := map[string]bool{}
		for _, b := range blocks {
			seen[b.Key] = true
			if last[b.Key] {
				continue
			}
			if _, err := fmt.Fprint(o.Out, b.Text); err != nil {
				return err
			}
		}
		last = seen
		return nil
	}
}
