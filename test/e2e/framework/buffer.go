package framework

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer safe for a process writing to it while a test reads it: the
// Stdout/Stderr of a plugin started in the background (a drive under faults, a reload
// watcher). The zero value is ready to use.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p; it never fails.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
