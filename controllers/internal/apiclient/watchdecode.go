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

// The members an event and its object are read for, each found in one
// pass over its object.
var (
	eventKeys  = []string{"type", "object"}
	objectKeys = []string{"kind", "apiVersion", "metadata"}
)

// decodeEvent reads one frame: its type, and its object's type and
// metadata without the members no controller reads (unreadMetadata), or
// the Status of an ERROR event.
func decodeEvent(frame []byte) (Event, error) {
	return new(watchTexts).decode(frame)
}

// decode is decodeEvent for the events of one watch, which share their
// kind and apiVersion strings through t.
func (t *watchTexts) decode(frame []byte) (Event, error) {
	if ev, ok := t.scanEvent(frame); ok {
		return ev, nil
	}
	return decodeEventGeneral(frame)
}

// decodeEventGeneral is decodeEvent for any frame: it finds the members
// it reads wherever they are, and reads what the plan gives up on with
// encoding/json.
func decodeEventGeneral(frame []byte) (Event, error) {
	var ev Event
	frame = bytes.TrimSpace(frame)
	var m [2]jsonscan.Member
	jsonscan.ObjectFields(frame, eventKeys, m[:])
	if !m[0].Found() || !m[1].Found() {
		return ev, fmt.Errorf("malformed watch event %.100q", frame)
	}
	if err := unmarshalString(frame[m[0].Start:m[0].End], &ev.Type); err != nil {
		return ev, fmt.Errorf("watch event type: %w", err)
	}
	obj := frame[m[1].Start:m[1].End]
	if ev.Type == "ERROR" {
		return ev, json.Unmarshal(obj, &ev.Status)
	}
	return ev, decodeObject(obj, &ev.Object)
}

// decodeObject reads an object's kind, apiVersion and metadata, leaving
// out the members of unreadMetadata, whatever they hold (another spelling
// of their names decodes, and is dropped after).
func decodeObject(obj []byte, into *Object) error {
	var m [3]jsonscan.Member
	jsonscan.ObjectFields(obj, objectKeys, m[:])
	for i, to := range []*string{&into.Kind, &into.APIVersion} {
		if m[i].Found() {
			if err := unmarshalString(obj[m[i].Start:m[i].End], to); err != nil {
				return fmt.Errorf("object %s: %w", objectKeys[i], err)
			}
		}
	}
	if !m[2].Found() {
		return errors.New("watched object without metadata")
	}
	md := obj[m[2].Start:m[2].End]
	for _, key := range unreadMetadata {
		md = withoutMember(md, key)
	}
	if err := decodeMetadata(md, &into.Metadata); err != nil {
		return err
	}
	dropUnread(&into.Metadata)
	return nil
}

// unmarshalString decodes the JSON string b into s: in place when it
// holds no escape, as the kinds and event types a server writes do.
func unmarshalString(b []byte, s *string) error {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b, '\\') < 0 {
		*s = string(b[1 : len(b)-1])
		return nil
	}
	return json.Unmarshal(b, s)
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
	var m [1]jsonscan.Member
	jsonscan.ObjectFields(b, []string{key}, m[:])
	if !m[0].Found() {
		return b
	}
	// Drop the member and one comma next to it: the one after it, or
	// for the last member the one before it.
	ks, me := m[0].Key, jsonscan.SkipSpace(b, m[0].End)
	if me < len(b) && b[me] == ',' {
		me++
	} else if p := len(bytes.TrimRight(b[:ks], " \t\r\n")) - 1; p >= 0 && b[p] == ',' {
		ks = p
	}
	out := make([]byte, 0, len(b)-(me-ks))
	return append(append(out, b[:ks]...), b[me:]...)
}
