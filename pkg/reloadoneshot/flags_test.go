package reloadoneshot

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestFlagsValidate: the one-shot flags alone, each refusal one line naming its flag.
func TestFlagsValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Flags)
		want   string
	}{
		{"defaults", func(*Flags) {}, ""},
		{"max-concurrent 0", func(f *Flags) { f.MaxConcurrent = 0 }, "--max-concurrent=0"},
		{"timeout 0", func(f *Flags) { f.Timeout = 0 }, "--timeout=0s"},
		{"field manager empty", func(f *Flags) { f.FieldManager = "" }, "--field-manager"},
		{"drive and adopt", func(f *Flags) { f.Drive, f.Adopt = true, true }, "--drive and --adopt"},
		{"drive with max-concurrent 2", func(f *Flags) { f.Drive, f.MaxConcurrent = true, 2 }, "one restart at a time"},
		{"negative interval", func(f *Flags) { f.Interval = -time.Second }, "--interval"},
		{"bad checks", func(f *Flags) { f.Checks = "speed" }, "speed"},
		{"timed readiness", func(f *Flags) { f.Readiness = "timed" }, "--readiness timed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFlags("rollplan-reload", 30*time.Second)
			tc.mutate(&f)
			err := f.Validate()
			if (tc.want == "") != (err == nil) || err != nil && (!strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")) {
				t.Errorf("Validate = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestFlagsValidateModes: --watch refuses the one-shot's flags and -o; several contexts
// refuse what writes; -o needs --yes or a dry run, except across contexts.
func TestFlagsValidateModes(t *testing.T) {
	f := NewFlags("rollplan-reload", 30*time.Second)
	if err := f.ValidateWatch(false, false, false); err != nil {
		t.Errorf("plain --watch: %v", err)
	}
	for name, err := range map[string]error{
		"--all":     f.ValidateWatch(true, false, false),
		"--dry-run": f.ValidateWatch(false, true, false),
	} {
		if err == nil || !strings.Contains(err.Error(), "for one run without --watch") {
			t.Errorf("--watch with %s: %v", name, err)
		}
	}
	if err := f.ValidateWatch(false, false, true); err == nil || !strings.HasPrefix(err.Error(), "-o: --watch") {
		t.Errorf("--watch -o: %v", err)
	}
	if err := f.ValidateContexts(3, true, false); err == nil || !strings.Contains(err.Error(), "reload --watch restarts in one cluster") {
		t.Errorf("--watch across contexts: %v", err)
	}
	if err := f.ValidateContexts(2, false, true); err == nil || !strings.HasPrefix(err.Error(), "--dry-run=server") {
		t.Errorf("--dry-run=server across contexts: %v", err)
	}
	if err := f.ValidateContexts(1, true, true); err != nil {
		t.Errorf("one context: %v", err)
	}
	if err := f.ValidateOutput(false, false); err != ErrOutputNeedsYes {
		t.Errorf("-o alone: %v", err)
	}
	if f.ValidateOutput(true, false) != nil || f.ValidateOutput(false, true) != nil {
		t.Error("-o with a dry run, or across contexts, refused")
	}
	f.Yes = true
	if err := f.ValidateContexts(2, false, false); err == nil || !strings.Contains(err.Error(), "--contexts names 2 contexts") {
		t.Errorf("--yes across contexts: %v", err)
	}
	if err := f.ValidateOutput(false, false); err != nil {
		t.Errorf("-o --yes: %v", err)
	}
}

// TestFlagsAddFlagsAndConfig: the flags parse onto Flags, and Config carries them with the
// selection flags (-l: bulk).
func TestFlagsAddFlagsAndConfig(t *testing.T) {
	f := NewFlags("rollplan-reload", 30*time.Second)
	cmd := &cobra.Command{}
	f.AddFlags(cmd)
	if err := cmd.ParseFlags([]string{"--adopt", "--max-concurrent=3", "--timeout=2m", "--checks=quota", "-y", "--lease-duration=1m"}); err != nil {
		t.Fatal(err)
	}
	c := f.Config(nil, target.KindArgs{}, "shop", &target.Flags{Selector: "app=web"})
	if !c.Adopt || c.MaxConcurrent != 3 || c.Timeout != 2*time.Minute || c.Checks != "quota" || !c.Bulk || c.Selector != "app=web" ||
		c.KindsNamespace != "shop" || c.FieldManager != "rollplan-reload" || !f.Yes || f.LeaseDuration != time.Minute {
		t.Errorf("flags %+v, config %+v", f, c)
	}
}

// TestNamedKinds: StatefulSets and DaemonSets named take the namespace; Deployments are not
// named kinds; names with -l, --all or -A are refused in kubectl's words.
func TestNamedKinds(t *testing.T) {
	ka, named, err := NamedKinds([]string{"sts/db", "ds/agent"}, "shop", &target.Flags{})
	if err != nil || !named || len(ka.Refs) != 2 || ka.Refs[0].Namespace != "shop" || ka.Refs[1].Kind != target.KindDaemonSet {
		t.Errorf("sts/db ds/agent: %+v %v %v", ka, named, err)
	}
	if ka, named, err := NamedKinds([]string{"deploy/web"}, "shop", &target.Flags{}); err != nil || named || len(ka.Refs) != 0 {
		t.Errorf("deploy/web: %+v %v %v", ka, named, err)
	}
	if ka, named, err := NamedKinds([]string{"sts"}, "shop", &target.Flags{All: true}); err != nil || !named || ka.Kind != target.KindStatefulSet {
		t.Errorf("sts --all: %+v %v %v", ka, named, err)
	}
	if _, _, err := NamedKinds([]string{"sts/db"}, "shop", &target.Flags{Selector: "a=b"}); err == nil || !strings.HasPrefix(err.Error(), "name cannot be provided when a selector is specified") {
		t.Errorf("sts/db -l: %v", err)
	}
	if _, _, err := NamedKinds([]string{"sts/db"}, "shop", &target.Flags{AllNamespaces: true}); err == nil || !strings.Contains(err.Error(), "across all namespaces") {
		t.Errorf("sts/db -A: %v", err)
	}
}
