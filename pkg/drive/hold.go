package drive

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
)

// holdState is the one owner of what a driver holds: the drive state it last wrote or
// took, the annotation value that state was written as (the guard of the next write),
// and the Deployment as last read or written (writes predict its next generation from
// it). The run and the lease renewal goroutine both read and replace it, so every access
// goes through its methods:
//
//   - readers (state, annValue, deployment, snapshot) take mu for a moment and get copies;
//   - writers (set, observe, handedBack, update) are serialized by writeMu, which update
//     keeps across its API call: each guarded write tests the annotation value the one
//     before it wrote, as when one mutex was held around the write. Readers do not wait
//     for that call.
//
// The pointer fields of a State (LeaseExpires, HeldSince, OriginalStrategy's) and the
// Deployment are never changed in place once stored: a new State or object replaces them.
type holdState struct {
	writeMu sync.Mutex
	mu      sync.Mutex
	st      *State
	ann     string
	dep     *appsv1.Deployment
}

// state returns a copy of the held state, nil before the takeover or acquire.
func (h *holdState) state() *State {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.st == nil {
		return nil
	}
	s := *h.st
	return &s
}

// annValue returns the annotation value the held state was written as.
func (h *holdState) annValue() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ann
}

// deployment returns the Deployment as last read or written (not to be modified).
func (h *holdState) deployment() *appsv1.Deployment {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dep
}

// snapshot returns the three together, as one consistent read.
func (h *holdState) snapshot() (*State, string, *appsv1.Deployment) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.st == nil {
		return nil, h.ann, h.dep
	}
	s := *h.st
	return &s, h.ann, h.dep
}

// set replaces everything: after the takeover write, or when taking a held drive over.
func (h *holdState) set(s *State, annValue string, dep *appsv1.Deployment) {
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	h.store(s, annValue, dep)
}

// observe keeps dep, a fresh read, as the Deployment when it is not older than the one
// held (by generation).
func (h *holdState) observe(dep *appsv1.Deployment) {
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dep == nil || dep.Generation >= h.dep.Generation {
		h.dep = dep
	}
}

// handedBack records the hand-back write: dep is what it returned, and the state is kept
// (for the result) without a holder.
func (h *holdState) handedBack(dep *appsv1.Deployment) {
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	s := *h.st
	s.Holder = ""
	h.st, h.dep = &s, dep
}

// update runs write with copies of the held state, annotation value and Deployment, other
// writers waiting; when write succeeds its results replace them. write makes the API call.
func (h *holdState) update(write func(cur *State, annValue string, dep *appsv1.Deployment) (*State, string, *appsv1.Deployment, error)) error {
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	cur, ann, dep := h.snapshot()
	next, val, out, err := write(cur, ann, dep)
	if err != nil {
		return err
	}
	h.store(next, val, out)
	return nil
}

func (h *holdState) store(s *State, annValue string, dep *appsv1.Deployment) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.st, h.ann, h.dep = s, annValue, dep
}
