// Package workqueue hands keys to a controller's workers: a key added
// while queued is queued once, and one added while a worker holds it is
// queued again when the worker is done, so no two workers hold the same
// key.
package workqueue

import (
	"sync"
	"time"
)

// Queue is a queue of keys.
type Queue struct {
	mu         sync.Mutex
	cond       *sync.Cond
	items      []string
	queued     map[string]bool
	processing map[string]bool
	again      map[string]bool
	closed     bool
}

// New returns an empty Queue.
func New() *Queue {
	q := &Queue{queued: map[string]bool{}, processing: map[string]bool{}, again: map[string]bool{}}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Add queues key.
func (q *Queue) Add(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.closed || q.queued[key]:
	case q.processing[key]:
		q.again[key] = true
	default:
		q.queued[key] = true
		q.items = append(q.items, key)
		q.cond.Signal()
	}
}

// AddAfter adds key after d, for retries.
func (q *Queue) AddAfter(key string, d time.Duration) {
	time.AfterFunc(d, func() { q.Add(key) })
}

// Get waits for a key and hands it to the caller, who calls Done with
// it when finished; ok is false once the queue is closed.
func (q *Queue) Get() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return "", false
	}
	key := q.items[0]
	q.items[0] = ""
	q.items = q.items[1:]
	delete(q.queued, key)
	q.processing[key] = true
	return key, true
}

// Done ends the processing of key.
func (q *Queue) Done(key string) {
	q.mu.Lock()
	delete(q.processing, key)
	again := q.again[key]
	delete(q.again, key)
	q.mu.Unlock()
	if again {
		q.Add(key)
	}
}

// Close stops the queue: Get returns false from now on.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

// Len is the number of keys queued or being processed.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) + len(q.processing)
}
