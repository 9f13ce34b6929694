package planner

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/dump"
)

// ComputeHash returns the pod-template-hash the controller gives a ReplicaSet made from
// template: fnv32a over dump.ForHash(template), then collisionCount as 8 little-endian bytes
// if it is set, encoded with rand.SafeEncodeString.
//
// The template must be the server-defaulted one (as stored in the Deployment), or the hash
// differs from the controller's.
//
// Mirrors controller.ComputeHash, pkg/controller/controller_utils.go, v1.36.3.
func ComputeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	hasher := fnv.New32a()
	hasher.Reset()
	fmt.Fprintf(hasher, "%v", dump.ForHash(*template))
	if collisionCount != nil {
		collisionCountBytes := make([]byte, 8)
		binary.LittleEndian.PutUint32(collisionCountBytes, uint32(*collisionCount))
		hasher.Write(collisionCountBytes)
	}
	return rand.SafeEncodeString(fmt.Sprint(hasher.Sum32()))
}

// ReplicaSetName returns the name the controller gives the ReplicaSet of deploymentName with
// podTemplateHash: "<deployment>-<hash>", the Deployment's name truncated so that the whole
// stays within 253 characters.
//
// Mirrors generateReplicaSetName, pkg/controller/deployment/sync.go, v1.36.3.
func ReplicaSetName(deploymentName, podTemplateHash string) string {
	const separator = "-"
	maxDeploymentNameLength := validation.DNS1123SubdomainMaxLength - len(separator) - len(podTemplateHash)
	if len(deploymentName) > maxDeploymentNameLength && maxDeploymentNameLength > 0 {
		return deploymentName[:maxDeploymentNameLength] + separator + podTemplateHash
	}
	return deploymentName + separator + podTemplateHash
}
