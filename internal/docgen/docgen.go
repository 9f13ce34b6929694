// Package docgen writes the flag reference of kubectl rollplan (docs/reference/) from the
// commands themselves, with cobra's Markdown generator (github.com/spf13/cobra/doc), the way
// kubectl's reference pages are generated from its commands. `make verify-docs` regenerates it
// into a temporary directory and fails when docs/reference differs.
package docgen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/rollplan/kubectl-rollplan/pkg/cmd"
)

// CacheDirDefault is the value the generated pages show as --cache-dir's default: kubectl's
// default depends on the home directory of whoever generates the pages, so the generator
// pins it (through KUBECACHEDIR, which cli-runtime reads) to this spelling.
const CacheDirDefault = "$HOME/.kube/cache"

// Generate writes one Markdown page per command of kubectl rollplan into dir (created if
// missing; pages of commands that no longer exist are removed): kubectl_rollplan.md for the
// root, kubectl_rollplan_VERB.md for each verb and subcommand (cobra's file names for the
// command path "kubectl rollplan VERB"). The pages carry no generation date, so the same
// commands give the same bytes. Errors: dir cannot be created, read or written.
func Generate(dir string) error {
	if err := os.Setenv("KUBECACHEDIR", CacheDirDefault); err != nil {
		return err
	}
	root := cmd.NewCmdRollplan(genericiooptions.IOStreams{In: strings.NewReader(""), Out: discard{}, ErrOut: discard{}})
	disableAutoGenTag(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "kubectl_rollplan*.md"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		return fmt.Errorf("generate the flag reference in %s: %w", dir, err)
	}
	return nil
}

func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGenTag(sub)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
