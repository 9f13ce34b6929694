package printer

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
)

// OutputFlags is -o/--output for rollplan's own objects: empty for the human form, or json,
// yaml, jsonpath=..., go-template=... through cli-runtime's printers (kubectl's own).
type OutputFlags struct {
	Output string
	// HumanForm names the output without -o in the flag's help ("a human-readable plan").
	HumanForm string
	jsonYaml  *genericclioptions.JSONYamlPrintFlags
	templates *genericclioptions.KubeTemplatePrintFlags
}

// NewOutputFlags returns OutputFlags defaulting to the human form.
func NewOutputFlags() *OutputFlags {
	return &OutputFlags{
		HumanForm: "a human-readable plan",
		jsonYaml:  genericclioptions.NewJSONYamlPrintFlags(),
		templates: genericclioptions.NewKubeTemplatePrintFlags(),
	}
}

// AllowedFormats lists the -o values.
func (o *OutputFlags) AllowedFormats() []string {
	return append(o.jsonYaml.AllowedFormats(), o.templates.AllowedFormats()...)
}

// AddFlags registers -o/--output and --template on cmd.
func (o *OutputFlags) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", fmt.Sprintf("Output format. One of: (%s). Default: %s.", strings.Join(o.AllowedFormats(), ", "), o.HumanForm))
	o.templates.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return o.AllowedFormats(), cobra.ShellCompDirectiveNoFileComp
	})
}

// Human reports whether the human form was asked for.
func (o *OutputFlags) Human() bool {
	return o.Output == "" && (o.templates.TemplateArgument == nil || *o.templates.TemplateArgument == "")
}

// ToPrinter returns the printer for a machine format, or an error naming the valid ones.
func (o *OutputFlags) ToPrinter() (printers.ResourcePrinter, error) {
	format := o.Output
	if format == "" {
		format = "go-template"
	}
	if p, err := o.jsonYaml.ToPrinter(format); !genericclioptions.IsNoCompatiblePrinterError(err) {
		return p, err
	}
	if p, err := o.templates.ToPrinter(format); !genericclioptions.IsNoCompatiblePrinterError(err) {
		return p, err
	}
	return nil, fmt.Errorf("unknown output format %q: use one of %s", o.Output, strings.Join(o.AllowedFormats(), ", "))
}
