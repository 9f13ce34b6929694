package testutil

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// DefaultNamespace is the namespace builders use unless told otherwise.
const DefaultNamespace = "default"

// Epoch is the creation time of Time(0): 2024-01-01T00:00:00Z.
var Epoch = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

// Time returns Epoch plus i minutes, at the second precision the API server stores: tests
// order objects with small integers instead of literal timestamps.
func Time(i int) metav1.Time {
	return metav1.NewTime(Epoch.Add(time.Duration(i) * time.Minute))
}

// UIDFor returns the deterministic UID builders give an object of the given kind and name,
// for example "uid-deployment-web".
func UIDFor(kind, name string) types.UID {
	return types.UID("uid-" + strings.ToLower(kind) + "-" + name)
}

func setKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}
