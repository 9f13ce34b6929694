package printer

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// AskYes writes question to w (stderr: stdout carries only the result) and reads one line of
// answer from r: "y" or "yes" (any case, surrounding spaces ignored) goes on, anything else
// declines. At end of input with nothing typed it declines and ends the prompt's line with a
// newline, so what is printed next starts on a line of its own. The one y/N confirmation of
// every verb: reload, the Deployment verbs (Confirm) and the StatefulSet/DaemonSet verbs.
func AskYes(r io.Reader, w io.Writer, question string) bool {
	fmt.Fprint(w, question)
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(w)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// Confirm returns a rollout.Batch's Confirm (pipeline.Writes.Confirm): ConfirmPrompt of verb
// on w (stderr), the answer from r (AskYes).
func Confirm(r io.Reader, w io.Writer, verb string) func([]rollout.Object, int) (bool, error) {
	return func(ready []rollout.Object, failed int) (bool, error) {
		return AskYes(r, w, ConfirmPrompt(verb, ready, failed)), nil
	}
}
