package responsewriters

import (
	"io"
	"net/http"
)

// Lists are written as they are made, from the bytes kept per object
// version, through one buffer of about StreamChunk bytes: a list of
// 10,000 Widgets is tens of megabytes, which would otherwise be
// allocated, filled and collected on every request. A list that fits in
// one chunk goes out whole, with its Content-Length; a larger one is
// written a chunk at a time, with its Content-Length when its size is
// known before the first item (JSON, protobuf and CBOR lists) and chunked
// otherwise (Tables, whose ages are rendered per request), or gzipped as
// Bodies.Start decides.

// StreamThreshold is the list size above which a list is written in
// chunks rather than assembled whole.
const StreamThreshold = 256 << 10

// StreamChunk is how much of a list is gathered per write.
const StreamChunk = 1 << 20

// maxPooledChunk is the largest buffer put back: one grown by a huge item
// is left to the collector.
const maxPooledChunk = 4 * StreamChunk

// ListBody is the body of one list response being written.
type ListBody struct {
	bodies      *Bodies
	w           http.ResponseWriter
	r           *http.Request
	contentType string
	size        int // of the whole body; -1 when unknown until the end
	buf         *[]byte
	out         io.Writer // nil until the first chunk is written
	done        func()
	gone        bool // a write failed: the client has gone
}

// NewList starts the body of a list of size bytes (-1: unknown) and
// returns it with the buffer to append the list to. The buffer is a
// recycled one (a pass of pages does not allocate a chunk per page); it
// holds no request data that anything reads: it is emptied when taken.
func (b *Bodies) NewList(w http.ResponseWriter, r *http.Request, contentType string, size int) (*ListBody, []byte) {
	buf, _ := b.chunks.Get().(*[]byte)
	if buf == nil {
		s := make([]byte, 0, StreamChunk+64<<10)
		buf = &s
	}
	return &ListBody{bodies: b, w: w, r: r, contentType: contentType, size: size, buf: buf}, (*buf)[:0]
}

// Flush writes buf when it has reached a chunk and returns the buffer to
// go on appending to; ok is false once the client has gone.
func (b *ListBody) Flush(buf []byte) (rest []byte, ok bool) {
	if len(buf) < StreamChunk || b.gone {
		return buf, !b.gone
	}
	if b.out == nil {
		b.out, b.done = b.bodies.Start(b.w, b.r, http.StatusOK, b.contentType, b.size)
	}
	if _, err := b.out.Write(buf); err != nil {
		b.gone = true
	}
	return buf[:0], !b.gone
}

// Finish writes the rest of the list, buf, and releases the buffer. A
// list written in one piece goes out with Bodies.Write.
func (b *ListBody) Finish(buf []byte) {
	switch {
	case b.gone:
	case b.out == nil:
		b.bodies.Write(b.w, b.r, http.StatusOK, b.contentType, buf)
	default:
		_, _ = b.out.Write(buf)
	}
	b.release(buf)
}

// Abort ends a list that cannot be completed: nothing more is written,
// so that a client reading a list whose headers are out sees it cut
// short, and the buffer is released.
func (b *ListBody) Abort(buf []byte) {
	b.gone = true
	b.release(buf)
}

func (b *ListBody) release(buf []byte) {
	if b.done != nil {
		b.done()
		b.done = nil
	}
	if b.buf == nil {
		return
	}
	if cap(buf) <= maxPooledChunk {
		*b.buf = buf[:0]
		b.bodies.chunks.Put(b.buf)
	}
	b.buf = nil
}
