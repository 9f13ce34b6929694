package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/exec"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// RevisionError is kubectl's "unable to find the specified revision", with the revisions
// that exist in h.
func RevisionError(h *rollout.History, n int64) error {
	nums := h.Numbers()
	if len(nums) == 0 {
		return fmt.Errorf("unable to find the specified revision %d: deployment %q has no revisions", n, h.Name)
	}
	s := make([]string, len(nums))
	for i, v := range nums {
		s[i] = strconv.FormatInt(v, 10)
	}
	return fmt.Errorf("unable to find the specified revision %d: revisions of deployment %q are %s", n, h.Name, strings.Join(s, ", "))
}

// DiffSide is one side of `history --diff`: a label and the pod template's YAML.
type DiffSide struct {
	Label, YAML string
}

// DiffSides resolves --diff [from to] on the history h of Deployment d: from and to (both
// given, positive) are two revisions; from 0 is the previous revision (the one `kubectl
// rollout undo` returns to) against the current one, or, when d's template matches no
// revision yet, the latest revision against d's template. Errors: a revision h lacks
// (RevisionError), no revision before the current one, no revision at all.
func DiffSides(h *rollout.History, d *appsv1.Deployment, from, to int64) (DiffSide, DiffSide, error) {
	side := func(n int64) (DiffSide, error) {
		r := h.Find(n)
		if r == nil {
			return DiffSide{}, RevisionError(h, n)
		}
		y, err := yaml.Marshal(r.Template())
		return DiffSide{Label: fmt.Sprintf("revision %d (replicaset %s)", n, r.ReplicaSet.Name), YAML: string(y)}, err
	}
	if from != 0 {
		a, err := side(from)
		if err != nil {
			return a, a, err
		}
		b, err := side(to)
		return a, b, err
	}
	nums := h.Numbers()
	if cur := h.Current(); cur != nil {
		var prev int64
		for _, n := range nums {
			if n < cur.Revision {
				prev = n
			}
		}
		if prev == 0 {
			return DiffSide{}, DiffSide{}, fmt.Errorf("deployment %q has no revision before the current one (%d): nothing to diff; give two revisions with --diff A B", h.Name, cur.Revision)
		}
		a, err := side(prev)
		if err != nil {
			return a, a, err
		}
		b, err := side(cur.Revision)
		return a, b, err
	}
	if len(nums) == 0 {
		return DiffSide{}, DiffSide{}, fmt.Errorf("deployment %q has no revisions: nothing to diff", h.Name)
	}
	a, err := side(nums[len(nums)-1])
	if err != nil {
		return a, a, err
	}
	y, err := yaml.Marshal(&d.Spec.Template)
	return a, DiffSide{Label: fmt.Sprintf("deployment.apps/%s spec.template (not rolled out yet)", h.Name), YAML: string(y)}, err
}

// ExternalDiff writes both sides to files of the same name
// (apps.v1.Deployment.NAMESPACE.NAME.spec.template.yaml) in two temporary directories and
// runs env, the value of KUBECTL_EXTERNAL_DIFF, on the directories through ex with out and
// errOut, as `kubectl diff` does. Exit status 1 (the files differ) is not an error. Errors:
// the temporary files' ("diff: ..."), the program's ("failed to run ...").
func ExternalDiff(ex exec.Interface, env, namespace, name string, from, to DiffSide, out, errOut io.Writer) error {
	file := fmt.Sprintf("apps.v1.Deployment.%s.%s.spec.template.yaml", namespace, name)
	var dirs [2]string
	for i, s := range []DiffSide{from, to} {
		prefix := "FROM-"
		if i == 1 {
			prefix = "TO-"
		}
		dir, err := os.MkdirTemp("", prefix)
		if err != nil {
			return fmt.Errorf("diff: %w", err)
		}
		defer os.RemoveAll(dir)
		content := "# " + s.Label + "\n" + s.YAML
		if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o600); err != nil {
			return fmt.Errorf("diff: %w", err)
		}
		dirs[i] = dir
	}
	program, args := externalDiffCommand(env, dirs[0], dirs[1])
	cmd := ex.Command(program, args...)
	cmd.SetStdout(out)
	cmd.SetStderr(errOut)
	err := cmd.Run()
	var exitErr exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exitErr) && exitErr.ExitStatus() <= 1:
		return nil
	default:
		return fmt.Errorf("failed to run %q: %v", program, err)
	}
}

// validDiffArg is the filter kubectl applies to the arguments in KUBECTL_EXTERNAL_DIFF.
var validDiffArg = regexp.MustCompile(`^[a-zA-Z0-9-=]+$`).MatchString

// externalDiffCommand splits KUBECTL_EXTERNAL_DIFF on spaces into the program and its
// arguments, keeping only arguments of letters, digits, '-' and '=', then appends from and
// to. Mirrors DiffProgram.getCommand, k8s.io/kubectl/pkg/cmd/diff/diff.go, v0.36.3.
func externalDiffCommand(env, from, to string) (string, []string) {
	fields := strings.Split(env, " ")
	var args []string
	for _, a := range fields[1:] {
		if validDiffArg(a) {
			args = append(args, a)
		}
	}
	return fields[0], append(args, from, to)
}

// MemberHistory is the history of one selected Deployment, with the Source (context) it was
// read from ("" for one context).
type MemberHistory struct {
	Source  string
	History *rollout.History
}

// Histories builds the history (rollout.BuildHistory) of every member read, in order, and
// returns apart, in order, the members that could not be read.
func Histories(members []Member) ([]MemberHistory, []Member) {
	var hs []MemberHistory
	var failed []Member
	for _, m := range members {
		if m.Err != nil {
			failed = append(failed, m)
			continue
		}
		hs = append(hs, MemberHistory{Source: m.Source, History: rollout.BuildHistory(m.State.Deployment, m.State.ReplicaSets)})
	}
	return hs, failed
}

// SelectEach selects sel in every Source of srcs at the same time (Live.Select, the one
// selection path; a nil Source is skipped). members[i] and errs[i] are srcs[i]'s.
func SelectEach(ctx context.Context, srcs []*Live, sel Selection) ([][]Member, []error) {
	members := make([][]Member, len(srcs))
	errs := make([]error, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		if src == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			members[i], errs[i] = src.Select(ctx, sel)
		}()
	}
	wg.Wait()
	return members, errs
}
