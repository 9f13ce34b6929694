package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// PrintHistories prints the histories of several Deployments on w: one section each
// (PrintHistory, ages at now), a blank line between; with contexts, each headed
// "Context: NAME".
func PrintHistories(w io.Writer, hs []pipeline.MemberHistory, now time.Time, contexts bool) error {
	for i, h := range hs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if contexts {
			fmt.Fprintf(w, "Context: %s\n", h.Source)
		}
		if err := PrintHistory(w, h.History, now); err != nil {
			return err
		}
	}
	return nil
}

// NewHistoryList is kubectl's v1 List of the RolloutHistory of each of hs (-o); with
// contexts each item carries its context.
func NewHistoryList(hs []pipeline.MemberHistory, contexts bool) (*corev1.List, error) {
	objs := make([]runtime.Object, 0, len(hs))
	for _, h := range hs {
		rh := NewRolloutHistory(h.History, 0)
		if contexts {
			rh.Context = h.Source
		}
		objs = append(objs, rh)
	}
	return NewList(objs)
}

// NewList returns kubectl's v1 List (kind List, as `kubectl get a b -o json` prints) of
// objects, for -o of a command whose object has no list kind of its own. Errors: an object
// that does not marshal to JSON.
func NewList(objs []runtime.Object) (*corev1.List, error) {
	l := &corev1.List{Items: make([]runtime.RawExtension, 0, len(objs))}
	l.APIVersion, l.Kind = "v1", "List"
	for _, o := range objs {
		raw, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		l.Items = append(l.Items, runtime.RawExtension{Raw: raw})
	}
	return l, nil
}
