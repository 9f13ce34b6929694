package printer

import (
	"bytes"
	"strings"
	"testing"
)

// The bytes `kubectl rollplan version` printed from pkg/cmd before the renderer moved here.
func TestPrintVersion(t *testing.T) {
	v := VersionInfo{Version: "v0.0.0-dev", Commit: "unknown", GoVersion: "go1.26.8", Platform: "linux/amd64", Controller: "kube-controller-manager v1.36.3"}
	var human, js, ym strings.Builder
	if err := PrintVersion(&human, v); err != nil {
		t.Fatal(err)
	}
	if err := PrintVersionAs(&js, v, "json"); err != nil {
		t.Fatal(err)
	}
	if err := PrintVersionAs(&ym, v, "yaml"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, got, want string }{
		{"human", human.String(), "kubectl-rollplan v0.0.0-dev (commit unknown, go1.26.8, linux/amd64)\nmodels the Deployment controller of Kubernetes v1.36.3\n"},
		{"json", js.String(), `{"commit":"unknown","controller":"kube-controller-manager v1.36.3","goVersion":"go1.26.8","platform":"linux/amd64","version":"v0.0.0-dev"}` + "\n"},
		{"yaml", ym.String(), "commit: unknown\ncontroller: kube-controller-manager v1.36.3\ngoVersion: go1.26.8\nplatform: linux/amd64\nversion: v0.0.0-dev\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

func TestPrintVersionOutput(t *testing.T) {
	v := NewVersionInfo("v1.2.3", "abc")
	for output, want := range map[string]string{"": "kubectl-rollplan v1.2.3 (commit abc", "json": `"version":"v1.2.3"`, "yaml": "version: v1.2.3"} {
		var b bytes.Buffer
		if err := PrintVersionOutput(&b, v, output); err != nil || !strings.Contains(b.String(), want) {
			t.Errorf("-o %q: %v %q, want %q in it", output, err, b.String(), want)
		}
	}
	var b bytes.Buffer
	if err := PrintVersionOutput(&b, v, "wide"); err == nil || err.Error() != `unknown output format "wide": use -o json or -o yaml` || b.Len() != 0 {
		t.Errorf("-o wide: %v, printed %q", err, b.String())
	}
}
