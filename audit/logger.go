package audit

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/kapi-dev/kapi/auth"
)

// Logger writes events as JSON lines to a writer, choosing each request's
// level by its policy.
type Logger struct {
	policy *Policy

	mu  sync.Mutex
	w   io.Writer
	err error // the first write error; later events are dropped
}

// NewLogger returns a Logger writing to w. A nil policy records every
// request at the Metadata level.
func NewLogger(w io.Writer, policy *Policy) *Logger {
	if policy == nil {
		policy = &Policy{Rules: []PolicyRule{{Level: LevelMetadata}}}
	}
	return &Logger{w: w, policy: policy}
}

// LevelFor returns the level of a request's event and the stages to
// leave out.
func (l *Logger) LevelFor(a auth.Attributes) (Level, []Stage) { return l.policy.LevelFor(a) }

// Log writes one event unless its stage is omitted. Write errors are kept
// and returned by Err; events after one are dropped.
func (l *Logger) Log(ev *Event, omit []Stage) {
	if ev.Level == LevelNone || slices.Contains(omit, ev.Stage) {
		return
	}
	ev.Kind, ev.APIVersion = "Event", "audit.k8s.io/v1"
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = l.w.Write(b)
	}
}

// Err returns the first error writing an event.
func (l *Logger) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// NewID returns a random audit ID in the form of a UUID.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
