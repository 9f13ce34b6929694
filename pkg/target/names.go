package target

import (
	"fmt"
	"strings"
)

// ParseNames parses the positional arguments of a command that acts on many Deployments
// (Choices.Many), the forms of kubectl's resource arguments with the type implied:
//
//   - "NAME ...": several names ("web api");
//   - "TYPE/NAME ...": several, each with a type ("deploy/web deployment.apps/api"), mixed with
//     plain names as one likes;
//   - "TYPE NAME ...": a Deployment type, then names ("deployment web api");
//   - "TYPE" alone: no name, for -l/--selector, --all or -A ("deploy -l app=web").
//
// It returns the names in order, each once (a repeated name is planned once), and whether a
// bare type was given. Errors: those of ParseName for each argument, and TYPE followed by a
// TYPE/NAME argument.
func ParseNames(args []string) (names []string, typed bool, err error) {
	if len(args) > 0 && !strings.Contains(args[0], "/") && IsDeploymentType(args[0]) {
		typed, args = true, args[1:]
		for _, a := range args {
			if strings.Contains(a, "/") {
				return nil, false, fmt.Errorf("%q: give either TYPE NAME or TYPE/NAME, not both", a)
			}
		}
	}
	seen := map[string]bool{}
	for _, a := range args {
		name, err := ParseName(a)
		if err != nil {
			return nil, false, err
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, typed, nil
}
