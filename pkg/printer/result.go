package printer

import (
	"fmt"
	"io"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/printers"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// DryRunSuffix is what kubectl appends to a result line's operation for a dry-run strategy:
// " (dry run)" for client, " (server dry run)" for server, "" for none. Mirrors
// PrintFlagsWithDryRunStrategy, k8s.io/kubectl/pkg/cmd/util/helpers.go, v0.36.3.
func DryRunSuffix(s cmdutil.DryRunStrategy) string {
	switch s {
	case cmdutil.DryRunClient:
		return " (dry run)"
	case cmdutil.DryRunServer:
		return " (server dry run)"
	}
	return ""
}

// PrintResult writes kubectl's result line for the Deployment name through cli-runtime's
// NamePrinter: "deployment.apps/NAME OPERATION[ (dry run)|(server dry run)]\n", e.g.
// "deployment.apps/web paused (dry run)". Errors are w's.
func PrintResult(w io.Writer, name, operation string, dryRun cmdutil.DryRunStrategy) error {
	d := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name}}
	d.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	p := &printers.NamePrinter{Operation: operation + DryRunSuffix(dryRun)}
	return p.PrintObj(d, w)
}

// PrintGuardResult writes the result line of `guard install|uninstall`:
// "validatingadmissionpolicy.admissionregistration.k8s.io/POLICY and its binding DONE\n".
func PrintGuardResult(w io.Writer, policy, done string) error {
	_, err := fmt.Fprintf(w, "validatingadmissionpolicy.admissionregistration.k8s.io/%s and its binding %s\n", policy, done)
	return err
}

// PrintWarnings writes each warning as a "warning: ...\n" line (kubectl's lower-case form
// for a plugin's own warnings).
func PrintWarnings(w io.Writer, warnings ...string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
}

// PrintLastAppliedWarning writes kubectl rollout undo's warning for a Deployment that carries
// kubectl.kubernetes.io/last-applied-configuration (rollout.LastAppliedWarning).
func PrintLastAppliedWarning(w io.Writer, name string) {
	fmt.Fprintf(w, rollout.LastAppliedWarning, "deployment.apps/"+name, corev1.LastAppliedConfigAnnotation, "kubectl")
}

// PrintPatch writes a JSON patch body alone: as it is plus a newline, or (format "yaml")
// converted to YAML by sigs.k8s.io/yaml. Errors are the conversion's or w's.
func PrintPatch(w io.Writer, body []byte, format string) error {
	if format == "yaml" {
		y, err := yaml.JSONToYAML(body)
		if err != nil {
			return err
		}
		_, err = w.Write(y)
		return err
	}
	_, err := fmt.Fprintf(w, "%s\n", body)
	return err
}

// PrintNotes writes each note on its own line, then a blank line: the end of a preview.
func PrintNotes(w io.Writer, notes ...string) {
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintln(w)
}
