package printer

import (
	"fmt"
	"io"
	"strings"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// PrintError writes err as kubectl does (cmdutil.StandardErrorMessage: the API server's
// message for a status error; else "error: MSG", the prefix not doubled), one line without
// trailing newlines of its own.
func PrintError(w io.Writer, err error) {
	msg, ok := cmdutil.StandardErrorMessage(err)
	if !ok {
		msg = err.Error()
		if !strings.HasPrefix(msg, "error: ") {
			msg = "error: " + msg
		}
	}
	fmt.Fprintln(w, strings.TrimRight(msg, "\n"))
}
