// Package deployutil holds the Deployment controller's rules that more than one package of
// rollplan needs, written once: the annotations the controller keeps on Deployments and
// ReplicaSets, which of them are never copied from a Deployment to its ReplicaSets, how a
// revision is read, when two pod templates are the same template, which ReplicaSet is a
// Deployment's new one, and the order the controller sorts ReplicaSets in.
//
// Each function names the upstream function it mirrors, from k8s.io/kubernetes v1.36.3
// pkg/controller/deployment/util/deployment_util.go or pkg/controller/controller_utils.go
// (kubectl's
// k8s.io/kubectl/pkg/util/deployment and polymorphichelpers/rollback.go carry copies of the
// same rules). The package imports only k8s.io/api and k8s.io/apimachinery, so the pure
// planner may use it.
//
// Not here: the pod-template-hash and the ReplicaSet name (planner.ComputeHash and
// planner.ReplicaSetName, the planner's identity functions) and the rules that only the
// planner applies (fenceposts, proportions, saturation).
package deployutil
