package watch_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// TestEncodedEventsReleased checks that the window keeps the encoded
// events its watchers share only for a while: not once they are older
// than a few seconds, not beyond its byte bound (16 MiB, released down
// to 8 MiB by the next change), not once the
// change left the window. A watcher that asks for a released encoding
// later gets the right bytes, encoded again.
func TestEncodedEventsReleased(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name    string
		opts    watch.Options
		size    int // of each encoding
		changes int // encoded by the watcher
		// batch: the watcher encodes the changes once all are made,
		// not each as it comes
		batch bool
		after func(c *watch.Cache, clock *fakeClock, more func())
		max   int64 // EncodedBytes then, at most
	}{{
		name: "older than five seconds", size: 1024, changes: 10,
		after: func(_ *watch.Cache, clock *fakeClock, _ func()) { clock.Step(6 * time.Second) },
		max:   0,
	}, {
		name: "over the byte bound", size: mib, changes: 24,
		after: func(_ *watch.Cache, _ *fakeClock, more func()) { more() },
		max:   8 * mib,
	}, {
		name: "at the byte cap", size: mib, changes: 24, batch: true,
		after: func(*watch.Cache, *fakeClock, func()) {},
		max:   17 * mib,
	}, {
		name: "left the window", opts: watch.Options{EventWindow: 4}, size: 1024, changes: 10,
		after: func(_ *watch.Cache, _ *fakeClock, more func()) { more() },
		max:   4 * 1024,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitLong)
			defer cancel()
			clock := newFakeClock()
			tc.opts.Clock = clock
			s := newStore(t, memory.Options{})
			c := newCache(t, s, tc.opts)
			start := c.Revision()
			encode := func(ev watch.Event) func() ([]byte, error) {
				return func() ([]byte, error) {
					return bytes.Repeat([]byte{byte(ev.Revision)}, tc.size), nil
				}
			}
			w, err := c.Watch(ctx, prefix, start, watch.WatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var evs []watch.Event
			for i := range tc.changes {
				put(t, s, key(i%3), fmt.Sprint(i))
				if !tc.batch {
					evs = append(evs, collect(t, w, 1)...)
				}
			}
			if tc.batch {
				c.Sync(ctx)
				evs = collect(t, w, tc.changes)
			}
			for _, ev := range evs {
				if _, err := ev.Encoded("test", encode(ev)); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.Stats().EncodedBytes; tc.max == 0 && got != int64(tc.changes*tc.size) {
				t.Fatalf("EncodedBytes = %d after %d encodings of %d bytes", got, tc.changes, tc.size)
			}
			tc.after(c, clock, func() { put(t, s, key(0), "more") })
			for c.Stats().EncodedBytes > tc.max {
				if ctx.Err() != nil {
					t.Fatalf("EncodedBytes = %d, want at most %d", c.Stats().EncodedBytes, tc.max)
				}
				time.Sleep(time.Millisecond)
			}

			// A watcher from the start gets every event's own bytes,
			// encoded again where they were released.
			again, err := c.Watch(ctx, prefix, max(start, c.Stats().Revision-int64(tc.changes)), watch.WatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Stop()
			for _, ev := range collect(t, again, 2) {
				b, err := ev.Encoded("test", func() ([]byte, error) { return nil, fmt.Errorf("no encoding expected") })
				if err == nil && (len(b) != tc.size || b[0] != byte(ev.Revision)) {
					t.Fatalf("event at %d: kept bytes %d long starting %d", ev.Revision, len(b), b[0])
				}
				if b, err = ev.Encoded("test", encode(ev)); err != nil || len(b) != tc.size || b[0] != byte(ev.Revision) {
					t.Fatalf("event at %d: %d bytes, %v", ev.Revision, len(b), err)
				}
			}
		})
	}
}

// TestEventWindowDefaults loads the benchmark's shape with the default
// options: 10,000 objects of about 4 KB created and updated once each,
// every event encoded by a watcher, as the controllers' watches do. The
// window holds its count bound (10,000 events) within its byte bound,
// the encodings at most 16 MiB while the changes are fresh, and none once
// they are older than 5 seconds.
func TestEventWindowDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 20,000 changes")
	}
	const n, size = 10000, 4000
	ctx, cancel := context.WithTimeout(context.Background(), 10*waitLong)
	defer cancel()
	clock := newFakeClock()
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{Clock: clock})
	w, err := c.Watch(ctx, prefix, c.Revision(), watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	done := make(chan error, 1)
	go func() {
		for range 2 * n {
			select {
			case ev, ok := <-w.Events():
				if !ok {
					done <- fmt.Errorf("watch ended: %v", w.Err())
					return
				}
				ev.Encoded("json", func() ([]byte, error) { return make([]byte, size+100), nil })
			case <-ctx.Done():
				done <- ctx.Err()
				return
			}
		}
		done <- nil
	}()
	value := string(bytes.Repeat([]byte{'x'}, size))
	for round := range 2 {
		for i := range n {
			put(t, s, key(i), value[round:])
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	t.Logf("window: %d events, %d stored bytes, %d encoded bytes", st.WindowEvents, st.WindowBytes, st.EncodedBytes)
	if st.WindowEvents != watch.DefaultEventWindow || st.WindowBytes > watch.DefaultEventWindowBytes || st.EncodedBytes > 16<<20+size+100 {
		t.Fatalf("window of %d events, %d stored bytes, %d encoded bytes: want %d events, at most %d and %d bytes",
			st.WindowEvents, st.WindowBytes, st.EncodedBytes, watch.DefaultEventWindow, watch.DefaultEventWindowBytes, 16<<20)
	}
	clock.Step(6 * time.Second)
	for c.Stats().EncodedBytes > 0 {
		if ctx.Err() != nil {
			t.Fatalf("%d encoded bytes kept 6 seconds after the last change", c.Stats().EncodedBytes)
		}
		time.Sleep(time.Millisecond)
	}
}
