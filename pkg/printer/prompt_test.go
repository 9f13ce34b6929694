package printer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

func TestAskYes(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantOut string
		want              bool
	}{
		{"y goes on", "y\n", "q? ", true},
		{"YES with spaces goes on", "  YES \n", "q? ", true},
		{"yes without a newline goes on", "yes", "q? ", true},
		{"n declines", "n\n", "q? ", false},
		{"an empty line declines", "\n", "q? ", false},
		{"end of input declines with a newline", "", "q? \n", false},
		{"only the first line counts", "no\ny\n", "q? ", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if got := AskYes(strings.NewReader(tc.in), &out, "q? "); got != tc.want || out.String() != tc.wantOut {
				t.Errorf("AskYes(%q) = %v, %q; want %v, %q", tc.in, got, out.String(), tc.want, tc.wantOut)
			}
		})
	}
}

// TestConfirm: the Deployment verbs' one question on w, answered from r.
func TestConfirm(t *testing.T) {
	var out bytes.Buffer
	ok, err := Confirm(strings.NewReader("y\n"), &out, "restart")([]rollout.Object{{Namespace: "shop", Name: "a"}}, 1)
	if want := `restart 1 Deployment in namespace "shop" as previewed above (1 more failed above and is left out)? [y/N]: `; !ok || err != nil || out.String() != want {
		t.Errorf("Confirm = %v, %v, %q; want true, %q", ok, err, out.String(), want)
	}
}
