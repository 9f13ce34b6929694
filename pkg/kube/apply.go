package kube

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ObjectClient is the part of a typed client (for example
// client.AdmissionregistrationV1().ValidatingAdmissionPolicies()) that CreateOrUpdate needs.
type ObjectClient[T metav1.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// Deleter is the part of a typed client that DeleteIfExists needs.
type Deleter interface {
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// CreateOrUpdate creates obj, or, when an object of its name exists, updates it to obj
// (held by the resourceVersion just read: a change in between is a Conflict), as
// FieldManager. obj's resourceVersion is set. kind names the resource in errors ("create
// validatingadmissionpolicy NAME: ..."); the API error is wrapped.
func CreateOrUpdate[T metav1.Object](ctx context.Context, c ObjectClient[T], obj T, kind string) error {
	name := obj.GetName()
	cur, err := c.Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		obj.SetResourceVersion(cur.GetResourceVersion())
		if _, err := c.Update(ctx, obj, Default().UpdateOptions()); err != nil {
			return fmt.Errorf("update %s %s: %w", kind, name, err)
		}
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("get %s %s: %w", kind, name, err)
	default:
		if _, err := c.Create(ctx, obj, Default().CreateOptions()); err != nil {
			return fmt.Errorf("create %s %s: %w", kind, name, err)
		}
	}
	return nil
}

// DeleteIfExists deletes the object name; one that does not exist is not an error. kind
// names the resource in errors ("delete KIND NAME: ...").
func DeleteIfExists(ctx context.Context, c Deleter, name, kind string) error {
	if err := c.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s %s: %w", kind, name, err)
	}
	return nil
}
