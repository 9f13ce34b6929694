package pipeline

import "testing"

func TestOneCluster(t *testing.T) {
	if err := OneCluster("undo", []string{"a"}); err != nil {
		t.Errorf("one context: %v", err)
	}
	if err := OneCluster("undo", nil); err != nil {
		t.Errorf("no --contexts: %v", err)
	}
	want := "drive writes to one cluster: --contexts names 2 contexts (a, b); run it once per context with --context"
	if err := OneCluster("drive", []string{"a", "b"}); err == nil || err.Error() != want {
		t.Errorf("two contexts: %v, want %q", err, want)
	}
}
