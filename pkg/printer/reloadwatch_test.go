package printer

import (
	"bytes"
	"testing"
)

func TestReloadOutcome(t *testing.T) {
	for _, c := range []struct{ outcome, ns, name, msg, want string }{
		{"Restarted", "shop", "web", "restarted for changed config: ConfigMap/app [a]", "deployment.apps/web restarted (namespace shop): restarted for changed config: ConfigMap/app [a]\n"},
		{"Adopted", "shop", "web", "recorded", "deployment.apps/web adopted (namespace shop): recorded\n"},
		{"Refused", "shop", "web", "secret shop/db is missing", "refused: secret shop/db is missing\n"},
		{"RolloutFailed", "shop", "web", "rollout of the config restart did not complete: x", "deployment.apps/web (namespace shop): rollout of the config restart did not complete: x\n"},
		{"GaveUp", "", "shop/web", "giving up after 15 tries", "deployment shop/web: giving up after 15 tries\n"},
		{"Other", "shop", "web", "x", ""},
	} {
		var b bytes.Buffer
		ReloadOutcome(&b, c.outcome, c.ns, c.name, c.msg)
		if b.String() != c.want {
			t.Errorf("%s: %q, want %q", c.outcome, b.String(), c.want)
		}
	}
}
