package workqueue

import (
	"testing"
	"time"
)

func TestQueue(t *testing.T) {
	q := New()
	q.Add("a")
	q.Add("b")
	q.Add("a") // queued once
	if q.Len() != 2 {
		t.Fatalf("len %d, want 2", q.Len())
	}
	k, _ := q.Get()
	if k != "a" {
		t.Fatalf("got %q first", k)
	}
	q.Add("a") // while processing: queued again after Done
	k2, _ := q.Get()
	if k2 != "b" {
		t.Fatalf("got %q, want b (a is being processed)", k2)
	}
	q.Done("b")
	q.Done("a")
	if k, _ := q.Get(); k != "a" {
		t.Fatalf("a not queued again after Done: %q", k)
	}
	q.Done("a")
	q.AddAfter("c", 10*time.Millisecond)
	if k, _ := q.Get(); k != "c" {
		t.Fatalf("AddAfter: %q", k)
	}
	q.Done("c")
	go q.Close()
	if _, ok := q.Get(); ok {
		t.Error("Get after Close returned an item")
	}
}
