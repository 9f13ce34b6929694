package drive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// patchOp is one RFC 6902 JSON patch operation.
type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// testOp, replaceOp, addOp and removeOp build patch operations. A test of a value that is
// JSON null is not possible with omitempty; drive never needs one.
func testOp(path string, v any) patchOp    { return patchOp{Op: "test", Path: path, Value: v} }
func replaceOp(path string, v any) patchOp { return patchOp{Op: "replace", Path: path, Value: v} }
func addOp(path string, v any) patchOp     { return patchOp{Op: "add", Path: path, Value: v} }
func removeOp(path string) patchOp         { return patchOp{Op: "remove", Path: path} }

// annotationPath is the JSON pointer of annotation key (RFC 6901 escaping).
func annotationPath(key string) string {
	return "/metadata/annotations/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// ErrGuard is matched (errors.Is) by the error of a write whose guard failed: the object
// changed since the driver read it.
var ErrGuard = errors.New("the object changed since drive read it")

// isTestFailed reports whether err is the API server's answer to a JSON patch that could not
// be applied, as when a test operation fails: 422 Invalid without field causes (a patch that
// applies but makes an invalid object names the fields).
func isTestFailed(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return false
	}
	s := st.Status()
	return s.Code == http.StatusUnprocessableEntity && (s.Details == nil || len(s.Details.Causes) == 0)
}

// guardError wraps err as ErrGuard when it is a failed guard (a failed test or a conflict).
func guardError(what string, err error) error {
	if isTestFailed(err) || apierrors.IsConflict(err) {
		return fmt.Errorf("%s: %w (%v)", what, ErrGuard, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func patchDeployment(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, ops []patchOp) (*appsv1.Deployment, error) {
	body, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	out, err := client.AppsV1().Deployments(d.Namespace).Patch(ctx, d.Name, types.JSONPatchType, body, metav1.PatchOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, guardError(fmt.Sprintf("patch deployment %s/%s", d.Namespace, d.Name), err)
	}
	return out, nil
}

// scaleReplicaSet sets rs's spec.replicas from from to to with a JSON patch guarded by a test
// of the ReplicaSet's UID and its spec.replicas; extra operations ride along (for example
// removing the desired-replicas annotation).
func scaleReplicaSet(ctx context.Context, client kubernetes.Interface, rs *appsv1.ReplicaSet, from, to int32, extra ...patchOp) (*appsv1.ReplicaSet, error) {
	ops := []patchOp{
		testOp("/metadata/uid", string(rs.UID)),
		testOp("/spec/replicas", from),
		replaceOp("/spec/replicas", to),
	}
	ops = append(ops, extra...)
	body, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	out, err := client.AppsV1().ReplicaSets(rs.Namespace).Patch(ctx, rs.Name, types.JSONPatchType, body, metav1.PatchOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, guardError(fmt.Sprintf("scale replicaset %s/%s from %d to %d", rs.Namespace, rs.Name, from, to), err)
	}
	return out, nil
}

// patchReplicaSet applies a JSON patch to rs.
func patchReplicaSet(ctx context.Context, client kubernetes.Interface, rs *appsv1.ReplicaSet, ops []patchOp) error {
	body, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	if _, err := client.AppsV1().ReplicaSets(rs.Namespace).Patch(ctx, rs.Name, types.JSONPatchType, body, metav1.PatchOptions{FieldManager: FieldManager}); err != nil {
		return guardError(fmt.Sprintf("patch replicaset %s/%s", rs.Namespace, rs.Name), err)
	}
	return nil
}

// replicasManager names the field manager that last set rs's spec.replicas, from its
// managed fields ("" when unknown).
func replicasManager(rs *appsv1.ReplicaSet) string {
	var who string
	var when time.Time
	for _, mf := range rs.ManagedFields {
		if mf.FieldsV1 == nil {
			continue
		}
		var fields map[string]map[string]any
		if json.Unmarshal(mf.FieldsV1.Raw, &fields) != nil {
			continue
		}
		if _, ok := fields["f:spec"]["f:replicas"]; !ok {
			continue
		}
		t := time.Time{}
		if mf.Time != nil {
			t = mf.Time.Time
		}
		if who == "" || !t.Before(when) {
			who, when = fmt.Sprintf("%s (%s)", mf.Manager, mf.Operation), t
		}
	}
	return who
}

// eventer records Events on the Deployment for the driver's writes.
type eventer struct {
	client kubernetes.Interface
	now    func() time.Time
	host   string
	warn   func(string)
}

func newEventer(client kubernetes.Interface, now func() time.Time, warn func(string)) *eventer {
	host, _ := os.Hostname()
	return &eventer{client: client, now: now, host: host, warn: warn}
}

// Event reasons drive records on the Deployment.
const (
	ReasonTakeover = "RollplanTakeover"
	ReasonCreated  = "RollplanCreated"
	ReasonScaled   = "RollplanScaled"
	ReasonReplan   = "RollplanReplanned"
	ReasonHeld     = "RollplanHeld"
	ReasonHandBack = "RollplanHandBack"
	ReasonAbort    = "RollplanAbort"
	ReasonLease    = "RollplanLeaseTaken"
	ReasonStopped  = "RollplanStopped"
)

// emit creates a core/v1 Event on d (source component kubectl-rollplan). A failure to
// record is reported through warn and does not stop the drive.
func (e *eventer) emit(ctx context.Context, d *appsv1.Deployment, eventType, reason, format string, args ...any) {
	if e == nil || d == nil {
		return
	}
	now := e.now()
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s.%x", d.Name, now.UnixNano()),
			Namespace: d.Namespace,
		},
		InvolvedObject: corev1.ObjectReference{
			Kind: "Deployment", APIVersion: appsv1.SchemeGroupVersion.String(),
			Namespace: d.Namespace, Name: d.Name, UID: d.UID, ResourceVersion: d.ResourceVersion,
		},
		Reason:              reason,
		Message:             fmt.Sprintf(format, args...),
		Source:              corev1.EventSource{Component: FieldManager, Host: e.host},
		FirstTimestamp:      metav1.NewTime(now),
		LastTimestamp:       metav1.NewTime(now),
		Count:               1,
		Type:                eventType,
		ReportingController: FieldManager,
		ReportingInstance:   e.host,
	}
	if _, err := e.client.CoreV1().Events(d.Namespace).Create(ctx, ev, metav1.CreateOptions{FieldManager: FieldManager}); err != nil && e.warn != nil {
		e.warn(fmt.Sprintf("could not record event %s on deployment %s/%s: %v", reason, d.Namespace, d.Name, err))
	}
}
