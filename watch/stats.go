package watch

// Stats is a cache's state at one moment, for health checks and metrics.
type Stats struct {
	// Ready is set once the first list has been loaded.
	Ready bool
	// Objects is the number of keys the cache holds.
	Objects int
	// WindowEvents is the number of events in the event window.
	WindowEvents int
	// WindowBytes is the stored bytes the window's events hold (see
	// Options.EventWindowBytes).
	WindowBytes int64
	// EncodedBytes is the bytes of the encoded events the window keeps
	// for its watchers (see [Event.Encoded]).
	EncodedBytes int64
	// Revision is the cache's revision.
	Revision int64
}

// Stats returns the cache's current state. It reads one published state
// and takes no lock.
func (c *Cache) Stats() Stats {
	st := c.cur.Load()
	return Stats{Ready: st.ready, Objects: st.root.Len(), WindowEvents: st.log.len(), WindowBytes: st.logBytes, EncodedBytes: c.frameBook.bytes.Load(), Revision: st.rev}
}
