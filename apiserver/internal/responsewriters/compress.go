package responsewriters

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/kapi-dev/kapi/codec"
)

// GzipThreshold is the body size above which a response is compressed
// for a client that accepts gzip: kube-apiserver's 128 KiB. Smaller bodies
// are not worth the CPU.
const GzipThreshold = 128 << 10

// Bodies writes response bodies. It recycles what writing them needs:
// compressors, which are large (hundreds of KiB of state) compared to the
// bodies they compress, and the buffers lists are written through. It
// holds no request data between uses. The zero value is ready to use; a
// server keeps one for all its answers.
type Bodies struct {
	gzipWriters sync.Pool // of *gzip.Writer
	chunks      sync.Pool // of *[]byte, see ListBody
}

// Write writes a complete get, list or write response. A body larger
// than GzipThreshold goes out gzipped, with Content-Encoding and Vary
// headers, when the request's Accept-Encoding names gzip; anything else is
// written as is with its Content-Length. Watch streams do not come here:
// they are never compressed.
func (b *Bodies) Write(w http.ResponseWriter, r *http.Request, code int, contentType string, body []byte) {
	out, done := b.Start(w, r, code, contentType, len(body))
	_, _ = out.Write(body)
	done()
}

// Start writes the headers of a response whose body will have size
// bytes (-1: a large body of a size not known yet, sent chunked or
// gzipped) and returns where to write the body, compressed or not as
// Write decides, and a function to call once it is all written.
func (b *Bodies) Start(w http.ResponseWriter, r *http.Request, code int, contentType string, size int) (io.Writer, func()) {
	h := w.Header()
	gz := acceptsGzip(r)
	if size >= 0 && (size <= GzipThreshold || !gz) {
		// Both values in one allocation, rather than one per Header.Set.
		vals := []string{contentType, strconv.Itoa(size)}
		h["Content-Type"], h["Content-Length"] = vals[0:1:1], vals[1:2:2]
		w.WriteHeader(code)
		return w, func() {}
	}
	h.Set("Content-Type", contentType)
	if !gz { // a large body of unknown size: chunked
		w.WriteHeader(code)
		return w, func() {}
	}
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	w.WriteHeader(code)
	zw := b.gzipWriter(w)
	return zw, func() {
		_ = zw.Close()
		zw.Reset(nil)
		b.gzipWriters.Put(zw)
	}
}

// gzipWriter returns a compressor writing to w, a recycled one when
// there is one.
func (b *Bodies) gzipWriter(w io.Writer) *gzip.Writer {
	if zw, ok := b.gzipWriters.Get().(*gzip.Writer); ok {
		zw.Reset(w)
		return zw
	}
	// Level 1, as kube-apiserver: least CPU for a ratio close to the
	// higher levels'.
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	return zw
}

// acceptsGzip reports whether Accept-Encoding lists gzip. Like
// kube-apiserver it looks for the bare token and ignores quality values.
func acceptsGzip(r *http.Request) bool {
	for rest := r.Header.Get("Accept-Encoding"); rest != ""; {
		var tok string
		tok, rest, _ = strings.Cut(rest, ",")
		if strings.TrimSpace(tok) == "gzip" {
			return true
		}
	}
	return false
}

// WriteEncoded encodes v with ser and writes it as Write does. It
// reports an error of the encoding, when nothing has been written.
func (b *Bodies) WriteEncoded(w http.ResponseWriter, r *http.Request, code int, ser codec.Serializer, contentType string, v any) error {
	var buf bytes.Buffer
	if err := ser.Encode(&buf, v); err != nil {
		return err
	}
	b.Write(w, r, code, contentType, buf.Bytes())
	return nil
}
