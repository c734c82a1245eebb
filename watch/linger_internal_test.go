package watch

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// TestLingerFor: no linger below lingerFloor watchers, then one that
// grows with them up to maxLinger.
func TestLingerFor(t *testing.T) {
	for _, tc := range []struct {
		watchers int64
		want     time.Duration
	}{
		{0, 0},
		{1, 0},
		{lingerFloor - 1, 0},
		{lingerFloor, lingerFloor * lingerPerWatcher},
		{100, 5 * time.Millisecond},
		{400, 20 * time.Millisecond},
		{1000, maxLinger},
		{100000, maxLinger},
	} {
		if got := lingerFor(tc.watchers); got != tc.want {
			t.Errorf("lingerFor(%d) = %v, want %v", tc.watchers, got, tc.want)
		}
	}
}

// TestWatcherLingers: with a linger, the change after a quiet spell is
// delivered at once, and the changes that follow it soon are held until
// the linger has passed and then delivered together, in order; without
// one, each goes out at once. The cache counts its running watchers.
func TestWatcherLingers(t *testing.T) {
	const linger = 400 * time.Millisecond
	for _, tc := range []struct {
		name   string
		linger time.Duration
	}{
		{"lingering", linger},
		{"not lingering", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := memory.New(memory.Options{})
			t.Cleanup(s.Close)
			c := New(s, "/w/", Options{})
			t.Cleanup(c.Stop)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := c.Ready(ctx); err != nil {
				t.Fatal(err)
			}
			c.linger = func(int64) time.Duration { return tc.linger }
			w, err := c.Watch(ctx, "/w/", 0, WatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := c.active.Load(); n != 1 {
				t.Fatalf("%d active watchers, want 1", n)
			}

			// The first change goes out at once, and so does one after a
			// quiet spell longer than the linger.
			for _, key := range []string{"a", "b"} {
				if key == "b" {
					time.Sleep(linger + linger/8)
				}
				sent := time.Now()
				lingerPut(t, s, key)
				lingerNext(t, w)
				if d := time.Since(sent); d >= linger/2 {
					t.Errorf("change %s after a quiet spell took %v", key, d)
				}
			}
			first := timedEvent{at: time.Now()}
			// Let the watcher go back to waiting for changes: one that is
			// still running when they come delivers them as it finds them.
			time.Sleep(linger / 8)
			var revs []int64
			for i := range 3 {
				revs = append(revs, lingerPut(t, s, strconv.Itoa(i)))
			}
			var got []time.Duration
			for i, rev := range revs {
				if ev := lingerNext(t, w); ev.Revision != rev {
					t.Fatalf("event %d at revision %d, want %d", i, ev.Revision, rev)
				}
				got = append(got, time.Since(first.at))
			}
			held := got[0] >= linger/2
			if held != (tc.linger > 0) {
				t.Fatalf("the changes after the first came %v after it; linger %v", got, tc.linger)
			}
			if held && got[2]-got[0] >= linger/2 {
				t.Fatalf("the held changes came apart: %v after the first", got)
			}
			w.Stop()
			for range w.Events() {
			}
			if n := c.active.Load(); n != 0 {
				t.Fatalf("%d active watchers after Stop, want 0", n)
			}
		})
	}
}

type timedEvent struct {
	Event
	at time.Time
}

func lingerNext(t *testing.T, w *Watcher) timedEvent {
	t.Helper()
	select {
	case ev := <-w.Events():
		return timedEvent{ev, time.Now()}
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	return timedEvent{}
}

func lingerPut(t *testing.T, s storage.Interface, name string) int64 {
	t.Helper()
	resp, err := s.OptimisticPut(context.Background(), "/w/"+name, []byte(`{}`), 0, storage.PutOptions{})
	if err != nil || !resp.Succeeded {
		t.Fatalf("put %s: %+v, %v", name, resp, err)
	}
	return resp.Revision
}
