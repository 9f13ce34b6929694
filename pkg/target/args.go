package target

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// deploymentTypes are the spellings kubectl's REST mapper resolves to apps/v1 deployments
// (resource, singular, kind and short name, bare or qualified by group or version.group),
// compared case-insensitively.
var deploymentTypes = map[string]bool{}

func init() {
	for _, t := range []string{"deploy", "deployment", "deployments"} {
		deploymentTypes[t] = true
		deploymentTypes[t+".apps"] = true
		deploymentTypes[t+".v1.apps"] = true
	}
}

// otherTypes maps common short names and singulars of other kinds to their resource, so an
// error can say "got replicasets" for "rs/x".
var otherTypes = map[string]string{
	"rs": "replicasets", "replicaset": "replicasets",
	"sts": "statefulsets", "statefulset": "statefulsets",
	"ds": "daemonsets", "daemonset": "daemonsets",
	"po": "pods", "pod": "pods",
	"svc": "services", "service": "services",
	"rc": "replicationcontrollers", "replicationcontroller": "replicationcontrollers",
	"cj": "cronjobs", "cronjob": "cronjobs",
	"job": "jobs",
	"cm":  "configmaps", "configmap": "configmaps",
	"hpa": "horizontalpodautoscalers", "horizontalpodautoscaler": "horizontalpodautoscalers",
	"ns": "namespaces", "namespace": "namespaces",
}

// IsDeploymentType reports whether typ (the part before "/" of a resource argument) names
// apps/v1 deployments: deploy, deployment or deployments, bare or with ".apps" or ".v1.apps",
// case-insensitive.
func IsDeploymentType(typ string) bool { return deploymentTypes[strings.ToLower(typ)] }

// ParseName returns the Deployment name in a command-line argument of the forms kubectl
// accepts for a resource: "NAME", "deploy/NAME", "deployment/NAME", "deployments/NAME",
// "deployment.apps/NAME", "deployments.v1.apps/NAME" (type case-insensitive).
//
// Errors: another type ("rs/x": `rollplan works on Deployments; got replicasets`), more than
// one slash, or a name that is not a valid Deployment name (a DNS-1123 subdomain).
func ParseName(arg string) (string, error) {
	typ, name, hasType := strings.Cut(arg, "/")
	if !hasType {
		return checkName(arg)
	}
	if strings.Contains(name, "/") {
		return "", fmt.Errorf("%q: arguments in resource/name form may not have more than one slash", arg)
	}
	if err := checkType(typ); err != nil {
		return "", err
	}
	return checkName(name)
}

// ParseArgs parses the positional arguments of a command that acts on one Deployment: either
// one argument (see ParseName) or TYPE NAME as two arguments ("deployment web"), as kubectl
// accepts, and returns the Deployment's name.
//
// Errors: no argument, two TYPE/NAME arguments, TYPE TYPE/NAME, three or more arguments, and
// those of ParseName.
func ParseArgs(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", fmt.Errorf("a Deployment is required: give deploy/NAME (or NAME)")
	case 1:
		return ParseName(args[0])
	case 2:
		if strings.Contains(args[0], "/") {
			return "", fmt.Errorf("one Deployment at a time: got %q and %q", args[0], args[1])
		}
		if err := checkType(args[0]); err != nil {
			return "", err
		}
		if strings.Contains(args[1], "/") {
			return "", fmt.Errorf("%q: give either TYPE NAME or TYPE/NAME, not both", strings.Join(args, " "))
		}
		return checkName(args[1])
	default:
		return "", fmt.Errorf("one Deployment at a time: got %d arguments (%s)", len(args), strings.Join(args, " "))
	}
}

// SplitPrefix splits a partly typed argument, as a shell completes it, into its Deployment
// type prefix ("" for a plain name; any spelling IsDeploymentType accepts, kept as typed) and
// the partial name after the first "/". ok is false for another resource type ("pod/w").
// The partial name is not validated: "deploy/W" is a prefix no Deployment name has.
func SplitPrefix(toComplete string) (prefix, partial string, ok bool) {
	typ, name, hasType := strings.Cut(toComplete, "/")
	if !hasType {
		return "", toComplete, true
	}
	if !IsDeploymentType(typ) {
		return "", "", false
	}
	return typ, name, true
}

func checkType(typ string) error {
	if IsDeploymentType(typ) {
		return nil
	}
	resource, group, _ := strings.Cut(strings.ToLower(typ), ".")
	if r, ok := otherTypes[resource]; ok {
		resource = r
	}
	if group != "" {
		resource += "." + group
	}
	if resource == "" {
		return fmt.Errorf("rollplan works on Deployments; got an empty resource type in %q", typ+"/")
	}
	return fmt.Errorf("rollplan works on Deployments; got %s", resource)
}

func checkName(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("a Deployment name is required: give deploy/NAME (or NAME)")
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", fmt.Errorf("invalid Deployment name %q: %s", name, strings.Join(errs, "; "))
	}
	return name, nil
}
