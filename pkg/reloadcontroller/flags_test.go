package reloadcontroller

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestWatchFlagsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // "" for valid
	}{
		{"watch", []string{"--watch"}, ""},
		{"leader election, metrics, no grace period", []string{"--watch", "--leader-elect", "--metrics-bind-address", ":0", "--grace-period", "0"}, ""},
		{"no watch, no watch flags", nil, ""},
		{"a watch flag without --watch", []string{"--grace-period", "1s"}, "--grace-period applies to --watch only"},
		{"names with --watch", []string{"--watch", "web"}, "drop the names"},
		{"negative grace period", []string{"--watch", "--grace-period", "-1s"}, "--grace-period=-1s"},
		{"lease not longer than the renew deadline", []string{"--watch", "--leader-elect", "--leader-elect-lease-duration", "10s"}, "must be longer than --leader-elect-renew-deadline"},
		{"zero retry period", []string{"--watch", "--leader-elect", "--leader-elect-retry-period", "0"}, "--leader-elect-retry-period=0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w WatchFlags
			cmd := &cobra.Command{Use: "reload"}
			w.AddFlags(cmd)
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			err := w.Validate(cmd, cmd.Flags().Args())
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("error %q is not one line", err)
			}
		})
	}
}
