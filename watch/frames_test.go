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
// than a few seconds, not beyond its byte bound (16 MiB), not once the
// change left the window. A watcher that asks for a released encoding
// later gets the right bytes, encoded again.
func TestEncodedEventsReleased(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name    string
		opts    watch.Options
		size    int // of each encoding
		changes int // encoded by the watcher
		after   func(c *watch.Cache, clock *fakeClock, more func())
		max     int64 // EncodedBytes then, at most
	}{{
		name: "older than five seconds", size: 1024, changes: 10,
		after: func(_ *watch.Cache, clock *fakeClock, _ func()) { clock.Step(6 * time.Second) },
		max:   0,
	}, {
		name: "over the byte bound", size: mib, changes: 24,
		after: func(_ *watch.Cache, _ *fakeClock, more func()) { more() },
		max:   16 * mib,
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
			for i := range tc.changes {
				put(t, s, key(i%3), fmt.Sprint(i))
				ev := collect(t, w, 1)[0]
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
