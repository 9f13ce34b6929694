package cmd

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// askYes writes question to w (stderr: stdout carries only the result) and reads one line of
// answer from r: "y" or "yes" (any case, surrounding spaces ignored) goes on, anything else
// declines. At end of input with nothing typed it declines and ends the prompt's line with a
// newline, so what is printed next starts on a line of its own. The one y/N confirmation of
// reload, the Deployment verbs (many.go) and the StatefulSet/DaemonSet verbs (kinds_write.go).
func askYes(r io.Reader, w io.Writer, question string) bool {
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
