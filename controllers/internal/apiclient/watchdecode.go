package apiclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/internal/typedjson"
	"github.com/kapi-dev/kapi/meta"
)

// The controllers watch every kind to learn owners and finalizers, so
// reading a watch event is on the path of every write. An event is
// {"type":T,"object":O} and a newline (the server's JSON framing); the
// controllers read only O's type and metadata, and never its
// managedFields, which are most of the metadata. So an event is read by
// finding those parts in the frame, not by decoding it.

// maxFrame bounds one watch frame read.
const maxFrame = 64 << 20

// frameBuffer is the read buffer of a watch. The controllers hold a watch
// on every resource, most of them idle, for as long as they run, so the
// buffer is what a watch costs at rest: it holds several events of
// objects of a few KB, and a frame longer than it is gathered in the
// frameReader's own buffer. 64 KiB cost 0.9 MiB over the 14 watches of
// the example server.
const frameBuffer = 8 << 10

// frameReader reads newline-ended watch frames.
type frameReader struct {
	br  *bufio.Reader
	buf []byte
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{br: bufio.NewReaderSize(r, frameBuffer)}
}

// next returns the next frame, valid until the next call.
func (f *frameReader) next() ([]byte, error) {
	line, err := f.br.ReadSlice('\n')
	if err == nil {
		return line, nil
	}
	f.buf = append(f.buf[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(f.buf) > maxFrame {
			return nil, fmt.Errorf("watch frame over %d bytes", maxFrame)
		}
		line, err = f.br.ReadSlice('\n')
		f.buf = append(f.buf, line...)
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(bytes.TrimSpace(f.buf)) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return f.buf, nil
}

// decodeEvent reads one frame: its type, and its object's type and
// metadata without managedFields, or the Status of an ERROR event.
func decodeEvent(frame []byte) (Event, error) {
	var ev Event
	frame = bytes.TrimSpace(frame)
	ts, te, ok := jsonscan.ObjectField(frame, "type")
	os, oe, ok2 := jsonscan.ObjectField(frame, "object")
	if !ok || !ok2 {
		return ev, fmt.Errorf("malformed watch event %.100q", frame)
	}
	if err := json.Unmarshal(frame[ts:te], &ev.Type); err != nil {
		return ev, fmt.Errorf("watch event type: %w", err)
	}
	obj := frame[os:oe]
	if ev.Type == "ERROR" {
		return ev, json.Unmarshal(obj, &ev.Status)
	}
	return ev, decodeObject(obj, &ev.Object)
}

// decodeObject reads an object's kind, apiVersion and metadata, leaving
// out metadata.managedFields.
func decodeObject(obj []byte, into *Object) error {
	for _, f := range []struct {
		key string
		to  *string
	}{{"kind", &into.Kind}, {"apiVersion", &into.APIVersion}} {
		if s, e, ok := jsonscan.ObjectField(obj, f.key); ok {
			if err := json.Unmarshal(obj[s:e], f.to); err != nil {
				return fmt.Errorf("object %s: %w", f.key, err)
			}
		}
	}
	ms, me, ok := jsonscan.ObjectField(obj, "metadata")
	if !ok {
		return errors.New("watched object without metadata")
	}
	return decodeMetadata(withoutMember(obj[ms:me], "managedFields"), &into.Metadata)
}

// metadataPlan decodes ObjectMeta by a plan compiled once: every watch
// event of every kind is read on the path of the write that caused it,
// and the reflective decoder was most of reading one. The plan is
// never changed after it is made.
var metadataPlan = typedjson.New(reflect.TypeFor[*meta.ObjectMeta]())

// decodeMetadata decodes b into m, which must be zero, by the plan when it can, else by
// encoding/json, whose result and error stand (the plan gives up on
// anything it is not sure of, such as an unknown field).
func decodeMetadata(b []byte, m *meta.ObjectMeta) error {
	if metadataPlan.Decode(b, m) { // m is left zero when it gives up
		return nil
	}
	return json.Unmarshal(b, m)
}

// withoutMember returns the JSON object b without its member key (b
// itself when it has none), in a new slice.
func withoutMember(b []byte, key string) []byte {
	vs, ve, ok := jsonscan.ObjectField(b, key)
	if !ok {
		return b
	}
	// The member starts at its key's opening quote: back from the value
	// over the colon, spaces and the quoted key (which, for the keys
	// asked for here, holds no escaped quote).
	ks := bytes.LastIndexByte(b[:vs], ':')
	ks = bytes.LastIndexByte(b[:ks], '"')
	ks = bytes.LastIndexByte(b[:ks], '"')
	if ks < 0 {
		return b
	}
	// Drop the member and one comma next to it: the one after it, or
	// for the last member the one before it.
	me := jsonscan.SkipSpace(b, ve)
	if me < len(b) && b[me] == ',' {
		me++
	} else if p := len(bytes.TrimRight(b[:ks], " \t\r\n")) - 1; p >= 0 && b[p] == ',' {
		ks = p
	}
	out := make([]byte, 0, len(b)-(me-ks))
	return append(append(out, b[:ks]...), b[me:]...)
}
