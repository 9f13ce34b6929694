package cluster

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

// ResolveName returns the Deployment name in a command-line argument of the forms kubectl
// accepts for a resource: "NAME", "deploy/NAME", "deployment/NAME", "deployments/NAME",
// "deployment.apps/NAME", "deployments.v1.apps/NAME" (type case-insensitive).
//
// Errors: another type ("rs/x": `rollplan works on Deployments; got replicasets`), more than
// one slash, or a name that is not a valid Deployment name (a DNS-1123 subdomain).
func ResolveName(arg string) (string, error) {
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

// ResolveArgs resolves the positional arguments of a command that acts on one Deployment:
// either one argument (see ResolveName) or TYPE NAME as two arguments
// ("deployment web"), as kubectl accepts.
func ResolveArgs(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", fmt.Errorf("a Deployment is required: give deploy/NAME (or NAME)")
	case 1:
		return ResolveName(args[0])
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

func checkType(typ string) error {
	t := strings.ToLower(typ)
	if deploymentTypes[t] {
		return nil
	}
	resource, group, _ := strings.Cut(t, ".")
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
