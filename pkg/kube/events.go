package kube

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
)

// Recorder records core/v1 Events on the objects rollplan writes, through client-go's event
// broadcaster (record.NewBroadcaster, StartRecordingToSink, a record.EventRecorder), as a
// controller does. Every Event has source component and reportingController FieldManager,
// source host and reportingInstance the host name, and is created with field manager
// FieldManager.
//
// Unlike a controller's, the correlator neither aggregates similar Events ("combined from
// similar events") nor rate-limits them per object: rollplan writes one Event per write, and
// each stays its own Event. Recording never blocks the caller; Shutdown waits for the queue
// to drain, so that a CLI exiting right after its last write does not lose its Events.
type Recorder struct {
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder
	sink        *eventSink
	queued      atomic.Int64
}

// NewRecorder starts a Recorder writing to client's core/v1 Events. warn (may be nil) gets
// one line for each Event the API server refused ("could not record event REASON on
// deployment NS/NAME: ERR"); a refused Event does not stop the caller. Call Shutdown when
// done.
func NewRecorder(client kubernetes.Interface, warn func(string)) *Recorder {
	host, _ := os.Hostname()
	s := &eventSink{
		EventSinkImpl: typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")},
		events:        client.CoreV1(),
		warn:          warn,
	}
	// The broadcaster's own log lines (a refused Event, with the whole Event dumped) would
	// reach the CLI's stderr through klog; warn says it in one line instead.
	quiet := klog.NewContext(context.Background(), logr.Discard())
	b := record.NewBroadcaster(record.WithContext(quiet), record.WithCorrelatorOptions(correlatorOptions()), record.WithSleepDuration(time.Second))
	b.StartRecordingToSink(s)
	return &Recorder{
		broadcaster: b,
		recorder:    b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: FieldManager, Host: host}),
		sink:        s,
	}
}

// correlatorOptions keep every Event its own: the aggregation key includes the message
// (never more than one message per key, so never MaxEvents of them), and the spam filter's
// key is the Event's unique name (one token bucket each, never empty).
func correlatorOptions() record.CorrelatorOptions {
	return record.CorrelatorOptions{
		KeyFunc: func(e *corev1.Event) (string, string) {
			key, msg := record.EventAggregatorByReasonFunc(e)
			return key + "\x00" + msg, msg
		},
		SpamKeyFunc: func(e *corev1.Event) string { return e.Namespace + "/" + e.Name },
	}
}

// Eventf records an Event of eventType (corev1.EventTypeNormal or EventTypeWarning) with
// reason and the message format, args on obj (an object of client-go's scheme with a name
// and namespace, e.g. *appsv1.Deployment). A nil obj (or nil Recorder) records nothing.
func (r *Recorder) Eventf(obj runtime.Object, eventType, reason, format string, args ...any) {
	if r == nil || obj == nil || reflect.ValueOf(obj).IsNil() {
		return
	}
	r.queued.Add(1)
	r.recorder.Eventf(obj, eventType, reason, format, args...)
}

// Flush waits until every Event recorded so far is written or refused, at most timeout,
// and reports whether they all were. An Event whose write keeps failing on the network is
// retried by the broadcaster (every second) until timeout.
func (r *Recorder) Flush(timeout time.Duration) bool {
	if r == nil {
		return true
	}
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		return r.sink.settled.Load() >= r.queued.Load(), nil
	})
	return err == nil
}

// Shutdown flushes (Flush, at most timeout) and stops the broadcaster; the Recorder records
// nothing after.
func (r *Recorder) Shutdown(timeout time.Duration) {
	if r == nil {
		return
	}
	r.Flush(timeout)
	r.broadcaster.Shutdown()
}

// eventSink is client-go's typed EventSinkImpl that creates Events with field manager
// FieldManager, and counts the Events it is done with (written, or refused for good) for
// Flush.
type eventSink struct {
	typedcorev1.EventSinkImpl
	events  typedcorev1.EventsGetter
	warn    func(string)
	settled atomic.Int64

	mu     sync.Mutex
	warned map[string]bool // Events already reported as retried, by name
}

// Create creates ev in its namespace as FieldManager.
func (s *eventSink) Create(ev *corev1.Event) (*corev1.Event, error) {
	out, err := s.events.Events(ev.Namespace).Create(context.TODO(), ev, Default().CreateOptions())
	s.settle(ev, err, false)
	return out, err
}

// Patch patches ev (the correlator's count of a repeated Event).
func (s *eventSink) Patch(ev *corev1.Event, data []byte) (*corev1.Event, error) {
	out, err := s.EventSinkImpl.Patch(ev, data)
	s.settle(ev, err, true)
	return out, err
}

// settle counts ev as done when the broadcaster will not send it again, as recordEvent
// (k8s.io/client-go/tools/record/event.go, v0.36.3) decides: written, or refused with an API
// status or an unbuildable request; a patch answered 404 is sent again as a create, and
// other errors (the network) are retried.
func (s *eventSink) settle(ev *corev1.Event, err error, patch bool) {
	switch err.(type) {
	case nil:
	case *apierrors.StatusError:
		if patch && apierrors.IsNotFound(err) {
			return
		}
		s.refused(ev, err)
	case *restclient.RequestConstructionError:
		s.refused(ev, err)
	default:
		s.retrying(ev, err)
		return
	}
	s.settled.Add(1)
}

// retrying warns once per Event that its write failed on the network and is retried.
func (s *eventSink) retrying(ev *corev1.Event, err error) {
	if s.warn == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.warned == nil {
		s.warned = map[string]bool{}
	}
	if s.warned[ev.Name] {
		return
	}
	s.warned[ev.Name] = true
	o := ev.InvolvedObject
	s.warn(fmt.Sprintf("could not record event %s on %s %s/%s yet (retrying): %v", ev.Reason, strings.ToLower(o.Kind), o.Namespace, o.Name, err))
}

func (s *eventSink) refused(ev *corev1.Event, err error) {
	if s.warn == nil {
		return
	}
	o := ev.InvolvedObject
	s.warn(fmt.Sprintf("could not record event %s on %s %s/%s: %v", ev.Reason, strings.ToLower(o.Kind), o.Namespace, o.Name, err))
}
