package printer

import (
	"bytes"
	"strings"
	"testing"
)

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
