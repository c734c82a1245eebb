package handlers

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// A watch stream over HTTP/1.1 writes its chunks on the connection
// itself. Through the ResponseWriter, each flush of a batch took three
// system calls: net/http's 4 KiB buffer filled with the chunk header and
// the batch's first bytes, the rest of the batch, and the chunk's closing
// CRLF. With 1,000 watchers those writes were a quarter of the server's
// CPU. On the connection, the batch is framed in place (its buffer keeps
// room for the chunk header in front) and written in one call.

// chunkRoom is the room a batch keeps in front for its chunk header: the
// length in hex (at most 8 digits for a batch under 4 GiB) and CRLF.
const chunkRoom = 10

// streamConn is a watch stream's hijacked connection.
type streamConn struct {
	conn net.Conn
	// scratch holds a chunk header as it is made.
	scratch [chunkRoom]byte
	// broken: a write failed (the peer is gone, or took nothing for the
	// stall timeout), perhaps halfway through a chunk.
	broken bool
}

// takesConn reports whether takeConn can be expected to take the
// stream's connection: an HTTP/1.1 GET on a writer that unwraps to one
// that can hand its connection over.
func (ws *watchStream) takesConn() bool {
	r := ws.req.Request
	if r.ProtoMajor != 1 || !r.ProtoAtLeast(1, 1) || r.Method != http.MethodGet {
		return false
	}
	w := ws.req.Writer
	for {
		if _, ok := w.(http.Hijacker); ok {
			return true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return false
		}
		w = u.Unwrap()
	}
}

// takeConn takes the connection of an HTTP/1.1 watch from net/http once
// the response's header has gone out (chunked, as net/http sends a
// response without a length), and watches it for the client's closing,
// which cancels the stream through cancel: net/http no longer reads it.
// It reports false, and leaves the stream on the ResponseWriter, when the
// connection cannot be taken (HTTP/2, a writer that does not unwrap to
// net/http's).
func (ws *watchStream) takeConn(cancel context.CancelFunc) bool {
	if !ws.takesConn() {
		return false
	}
	conn, brw, err := ws.rc.Hijack()
	if err != nil {
		return false
	}
	ws.conn = &streamConn{conn: conn}
	go func() {
		// A watch's client sends nothing more: a read ends when it
		// closes the connection, or when the stream does. (net/http's
		// reader under brw cancels the request's context too.)
		_, _ = io.Copy(io.Discard, brw.Reader)
		cancel()
	}()
	return true
}

// room is the bytes a new batch keeps in front.
func (ws *watchStream) room() int {
	if ws.conn != nil {
		return chunkRoom
	}
	return 0
}

// writeChunk frames batch (whose first chunkRoom bytes are room for the
// header) as one HTTP chunk and writes it in one call.
func (c *streamConn) writeChunk(batch []byte) error {
	n := len(batch) - chunkRoom
	hdr := strconv.AppendInt(c.scratch[:0], int64(n), 16)
	hdr = append(hdr, '\r', '\n')
	start := chunkRoom - len(hdr)
	copy(batch[start:], hdr)
	batch = append(batch, '\r', '\n')
	_, err := c.conn.Write(batch[start:])
	c.broken = c.broken || err != nil
	return err
}

// closeTimeout bounds the write of a stream's last chunk.
const closeTimeout = time.Second

// close ends the chunked body and closes the connection, which net/http
// can no longer keep alive for another request. The last chunk gets a
// deadline of its own: the one of the stream's last write may have
// passed during a quiet spell, and a body cut before its last chunk is
// an error to the client (curl's "transfer closed", Go's unexpected
// EOF) rather than the end of the watch. After a failed write the
// connection is only closed: a last chunk behind a cut one would read
// as more of it.
func (c *streamConn) close() {
	if !c.broken {
		_ = c.conn.SetWriteDeadline(time.Now().Add(closeTimeout))
		_, _ = c.conn.Write([]byte("0\r\n\r\n"))
	}
	_ = c.conn.Close()
}
