package target

import (
	"errors"
	"fmt"
	"strings"
)

// Kind is an apps/v1 workload kind a rollout verb acts on.
type Kind string

// The kinds kubectl rollout knows (history, undo, restart, status).
const (
	KindDeployment  Kind = "Deployment"
	KindStatefulSet Kind = "StatefulSet"
	KindDaemonSet   Kind = "DaemonSet"
)

// kindTypes maps the spellings kubectl's REST mapper resolves to apps/v1 StatefulSets and
// DaemonSets (short name, singular, resource; bare, ".apps" or ".v1.apps"; case-insensitive)
// to their kind. Deployments keep IsDeploymentType.
var kindTypes = map[string]Kind{}

func init() {
	for k, spellings := range map[Kind][]string{
		KindStatefulSet: {"sts", "statefulset", "statefulsets"},
		KindDaemonSet:   {"ds", "daemonset", "daemonsets"},
	} {
		for _, t := range spellings {
			kindTypes[t] = k
			kindTypes[t+".apps"] = k
			kindTypes[t+".v1.apps"] = k
		}
	}
}

// Resource returns the kind's plural resource ("statefulsets").
func (k Kind) Resource() string { return strings.ToLower(string(k)) + "s" }

// Name returns kubectl's name for an object of the kind in result lines:
// "statefulset.apps/NAME", "daemonset.apps/NAME", "deployment.apps/NAME".
func (k Kind) Name(name string) string { return strings.ToLower(string(k)) + ".apps/" + name }

// KindOfType returns the StatefulSet or DaemonSet kind that typ (the part before "/" of a
// resource argument) names, and false for anything else (Deployments included).
func KindOfType(typ string) (Kind, bool) {
	k, ok := kindTypes[strings.ToLower(typ)]
	return k, ok
}

// KindRef names one StatefulSet or DaemonSet. Namespace is empty until the command resolves
// it.
type KindRef struct {
	Kind      Kind
	Namespace string
	Name      string
}

// String returns kubectl's name, "statefulset.apps/NAME".
func (r KindRef) String() string { return r.Kind.Name(r.Name) }

// KindArgs are the positional arguments of a command selecting StatefulSets or DaemonSets:
// the kind of a bare type ("sts" for -l, --all, -A, or "sts a b"), and the objects named.
type KindArgs struct {
	// Kind is the kind of a bare TYPE first argument; empty when every argument is TYPE/NAME.
	Kind Kind
	// Refs are the named objects, in order, each once.
	Refs []KindRef
}

// ParseKindArgs reads args in kubectl's resource forms when they name StatefulSets or
// DaemonSets: "sts/NAME ...", "statefulsets.apps/NAME", "ds NAME NAME", a bare "sts" (for
// -l, --all, -A: bulk). ok is false when no argument names one of the two kinds: the
// arguments are then the Deployment selection's, untouched. A lone bare type without bulk
// stays a Deployment's name, as it always was ("history sts": the Deployment sts).
//
// Errors: Deployments and StatefulSets/DaemonSets in one run, TYPE followed by TYPE/NAME,
// another type, more than one slash, an invalid name (DNS-1123 subdomain).
func ParseKindArgs(args []string, bulk bool) (ka KindArgs, ok bool, err error) {
	if !namesKind(args) || len(args) == 1 && !bulk && !strings.Contains(args[0], "/") {
		return KindArgs{}, false, nil
	}
	rest := args
	if len(args) > 0 && !strings.Contains(args[0], "/") {
		k, isKind := KindOfType(args[0])
		if !isKind {
			return KindArgs{}, true, mixedError(args)
		}
		ka.Kind, rest = k, args[1:]
	}
	seen := map[KindRef]bool{}
	for _, a := range rest {
		ref, err := parseKindArg(a, ka.Kind)
		if err != nil {
			return KindArgs{}, true, err
		}
		if !seen[ref] {
			seen[ref] = true
			ka.Refs = append(ka.Refs, ref)
		}
	}
	return ka, true, nil
}

// namesKind reports whether an argument names a StatefulSet or DaemonSet type: a bare first
// argument, or the TYPE of any TYPE/NAME.
func namesKind(args []string) bool {
	for i, a := range args {
		typ, _, hasType := strings.Cut(a, "/")
		if (hasType || i == 0) && kindTypes[strings.ToLower(typ)] != "" {
			return true
		}
	}
	return false
}

func parseKindArg(a string, bare Kind) (KindRef, error) {
	typ, name, hasType := strings.Cut(a, "/")
	if !hasType {
		if bare == "" {
			return KindRef{}, fmt.Errorf("%q: give the kind of every name (sts/NAME, ds/NAME), or the type first (sts NAME ...)", a)
		}
		n, err := checkKindName(bare, a)
		return KindRef{Kind: bare, Name: n}, err
	}
	if bare != "" {
		return KindRef{}, fmt.Errorf("%q: give either TYPE NAME or TYPE/NAME, not both", a)
	}
	if strings.Contains(name, "/") {
		return KindRef{}, fmt.Errorf("%q: arguments in resource/name form may not have more than one slash", a)
	}
	k, ok := KindOfType(typ)
	if !ok {
		return KindRef{}, mixedError([]string{a})
	}
	n, err := checkKindName(k, name)
	return KindRef{Kind: k, Name: n}, err
}

func mixedError(args []string) error {
	return errors.New("give StatefulSets and DaemonSets (sts/NAME, ds/NAME) and other kinds in separate runs: got " + strings.Join(args, " "))
}

func checkKindName(k Kind, name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("a %s name is required: give %s/NAME", k, k.Resource())
	}
	if _, err := checkName(name); err != nil {
		return "", fmt.Errorf("invalid %s name %q: %s", k, name, strings.TrimPrefix(err.Error(), fmt.Sprintf("invalid Deployment name %q: ", name)))
	}
	return name, nil
}
