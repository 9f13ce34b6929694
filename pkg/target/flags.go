package target

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/resource"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// Choices are the selection flags a command takes, chosen per command. The zero value is
// today's one Deployment by name, with no flag added.
type Choices struct {
	// Many: several names, -l/--selector, --all and --chunk-size (kubectl rollout's).
	Many bool
	// AllNamespaces: -A/--all-namespaces as well (read-only commands only: preview without a
	// change, history, drive status). Needs Many.
	AllNamespaces bool
	// Filenames: -f/--filename, -R/--recursive and -k/--kustomize (kubectl's
	// resource.FilenameOptions, cmdutil.AddFilenameOptionFlags). Needs Many.
	Filenames bool
	// FilenameUsage completes the help of -f ("identifying the resource to ..."), as kubectl's
	// commands word it.
	FilenameUsage string
	// OneOnly, for a command that works on one Deployment per run: -l/--selector and --all
	// are registered only to be refused with this reason ("drive works on one Deployment per
	// run"), and several names get the same error.
	OneOnly string
}

// Flags holds the values of the selection flags of one command.
type Flags struct {
	Choices
	Selector      string
	All           bool
	AllNamespaces bool
	ChunkSize     int64
	Filenames     resource.FilenameOptions
}

// NewFlags returns Flags for a command with choices c; --chunk-size defaults to kubectl's 500.
func NewFlags(c Choices) *Flags {
	return &Flags{Choices: c, ChunkSize: DefaultChunkSize}
}

// AddFlags registers on cmd the flags f's Choices select, with kubectl's names, shorthands
// and help: -l/--selector (cmdutil.AddLabelSelectorFlagVar), --all, -A/--all-namespaces,
// --chunk-size (cmdutil.AddChunkSizeFlag) and -f/-R/-k (cmdutil.AddFilenameOptionFlags).
func (f *Flags) AddFlags(cmd *cobra.Command) {
	switch {
	case f.Many:
		cmdutil.AddLabelSelectorFlagVar(cmd, &f.Selector)
		cmd.Flags().BoolVar(&f.All, "all", f.All, "Select all Deployments in the namespace (of -n, or the current context).")
		cmdutil.AddChunkSizeFlag(cmd, &f.ChunkSize)
	case f.OneOnly != "":
		cmdutil.AddLabelSelectorFlagVar(cmd, &f.Selector)
		cmd.Flags().BoolVar(&f.All, "all", f.All, "Not supported: "+f.OneOnly+".")
		_ = cmd.Flags().MarkHidden("all")
		_ = cmd.Flags().MarkHidden("selector")
	}
	if f.Many && f.Choices.AllNamespaces {
		cmd.Flags().BoolVarP(&f.AllNamespaces, "all-namespaces", "A", f.AllNamespaces, "If present, select the Deployments across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	}
	if f.Many && f.Choices.Filenames {
		usage := f.FilenameUsage
		if usage == "" {
			usage = "holding the Deployments to plan."
		}
		cmdutil.AddFilenameOptionFlags(cmd, &f.Filenames, usage)
	}
}

// Selection returns the Selection of args and these flags in namespace (enforce: -n was
// given), resolved through builder (nil: offline). For a OneOnly command, a selector, --all or
// more than one Deployment is refused here with its reason (one line, nothing asked).
func (f *Flags) Selection(args []string, namespace string, enforce bool, builder Builder) (*Selection, error) {
	if f.OneOnly != "" && !f.Many {
		if err := f.refuseMany(args); err != nil {
			return nil, err
		}
	}
	s := &Selection{
		Args: args, Namespace: namespace, EnforceNamespace: enforce, Builder: builder,
		Many: f.Many, Selector: f.Selector, All: f.All, ChunkSize: f.ChunkSize,
		AllNamespaces: f.Many && f.Choices.AllNamespaces && f.AllNamespaces,
	}
	if f.Many && f.Choices.Filenames {
		fo := f.Filenames
		s.Filenames = &fo
	}
	return s, nil
}

// refuseMany gives OneOnly's one-line error for -l, --all or several names.
func (f *Flags) refuseMany(args []string) error {
	what := ""
	switch {
	case f.Selector != "":
		what = fmt.Sprintf("-l %s selects Deployments", f.Selector)
	case f.All:
		what = "--all selects every Deployment in the namespace"
	case len(args) > 1:
		if names, _, err := ParseNames(args); err == nil && len(names) > 1 {
			what = fmt.Sprintf("%d Deployments given (%v)", len(names), names)
		}
	}
	if what == "" {
		return nil
	}
	return fmt.Errorf("%s: %s; run it once per Deployment (deploy/NAME)", what, f.OneOnly)
}
