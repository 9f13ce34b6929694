package v1alpha1

import "time"

// Timestamp is a time.Time that keeps time.Time's JSON form (RFC 3339 with nanoseconds, as
// drive writes its state annotation), where metav1.Time would cut it to seconds. Its deep
// copy is written by hand, as metav1.Time's is: a time.Time is a value (its *Location is
// never mutated), so copying the struct is deep.
//
// +k8s:deepcopy-gen=false
type Timestamp struct {
	time.Time
}

// NewTimestamp wraps t.
func NewTimestamp(t time.Time) Timestamp { return Timestamp{Time: t} }

// DeepCopyInto copies *t into *out.
func (t *Timestamp) DeepCopyInto(out *Timestamp) { *out = *t }

// DeepCopy returns a copy of t, nil for a nil t.
func (t *Timestamp) DeepCopy() *Timestamp {
	if t == nil {
		return nil
	}
	out := *t
	return &out
}
