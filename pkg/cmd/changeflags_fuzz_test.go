package cmd

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
)

// FuzzChangeFlags parses --image (twice), --replicas and --to-revision values from the fuzzer
// as the command line gives them, then runs ChangeFlags.Validate, Apply on webFixture and
// change.Validate, as preview does. The property: no panic; every error is one non-empty
// line; a success has the replicas asked for (0 or more) and each --image pair applied. Seeds:
// real flags and crafted bad ones (`--image =`, `--image a=`, negative, huge and non-numeric
// numbers). `make fuzz` runs it for FUZZTIME; plain `go test` replays the seeds and
// testdata/fuzz.
func FuzzChangeFlags(f *testing.F) {
	for _, s := range []struct {
		image1, image2, replicas, toRevision string
		restart                              bool
	}{
		{"app=nginx:1.21", "", "", "", false},
		{"*=nginx:1.21", "", "5", "", false},
		{"", "", "0", "", true},
		{"", "", "", "2", false},
		{"", "", "", "0", false},
		{"=", "", "", "", false},
		{"a=", "", "", "", false},
		{"app=a", "nope=b", "", "", false},
		{"", "", "-5", "", false},
		{"", "", "99999999999", "", false},
		{"", "", "", "-1", false},
		{"", "", "", "99999999999999999999", false},
		{"", "", "ten", "1.5", false},
		{"app=a\nb", "", "3\n", "", false},
		{"app=nginx:1.21", "", "", "4", true},
	} {
		f.Add(s.image1, s.image2, s.replicas, s.toRevision, s.restart)
	}
	f.Fuzz(func(t *testing.T, image1, image2, replicas, toRevision string, restart bool) {
		var args []string
		for _, image := range []string{image1, image2} {
			if image != "" {
				args = append(args, "--image="+image)
			}
		}
		if replicas != "" {
			args = append(args, "--replicas="+replicas)
		}
		if toRevision != "" {
			args = append(args, "--to-revision="+toRevision)
		}
		if restart {
			args = append(args, "--restart")
		}
		c := &ChangeFlags{}
		cmd := &cobra.Command{Use: "preview"}
		c.AddFlags(cmd)
		err := cmd.ParseFlags(args)
		if err == nil {
			cmd.PreRun(cmd, nil)
			err = c.Validate()
		}
		if err == nil && !c.Any() {
			return // no change flag: preview asks for one before Apply
		}
		if err == nil {
			err = applyAndValidate(t, c)
		}
		if err != nil {
			msg := err.Error()
			if strings.TrimSpace(msg) == "" || strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("args %q: error is not one non-empty line: %q", args, msg)
			}
		}
	})
}

// applyAndValidate runs Apply on webFixture and change.Validate, and checks a success.
func applyAndValidate(t *testing.T, c *ChangeFlags) error {
	live, rss := webFixture()
	d, _, err := c.Apply(live, rss, strings.NewReader(""), historyNow)
	if err != nil {
		return err
	}
	if err := change.Validate(d); err != nil {
		return err
	}
	checkApplied(t, c, d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Image)
	return nil
}

// checkApplied fails t unless --replicas and an --image of the fixture's one container
// (app, or *) took effect, when --to-revision (which sets its own template) is not given.
func checkApplied(t *testing.T, c *ChangeFlags, replicas *int32, image string) {
	t.Helper()
	if c.ReplicasSet && (replicas == nil || *replicas != c.Replicas || c.Replicas < 0) {
		t.Fatalf("--replicas=%d gave spec.replicas %v", c.Replicas, replicas)
	}
	if c.ToRevisionSet {
		return
	}
	want := ""
	for _, p := range c.Images {
		if name, img, _ := strings.Cut(p, "="); name == "app" || name == "*" {
			want = img
		}
	}
	if want != "" && image != want {
		t.Fatalf("--image %q gave image %q", c.Images, image)
	}
}
