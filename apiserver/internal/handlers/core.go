package handlers

import (
	"log/slog"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/apiserver/observe"
	"github.com/kapi-dev/kapi/codec"
)

// Core is what the handlers of every resource share: the server's
// codecs, log and limits.
type Core struct {
	Log    *slog.Logger
	Codecs *codec.Registry
	// Observer and Tracer are Options.Observer and Options.Tracer; nil:
	// none (see observe.go).
	Observer observe.Observer
	Tracer   observe.Tracer
	// watchBufs holds the buffers watch streams gather events in between
	// two writes (see watchStream.flush).
	watchBufs watchBuffers
	// listSplices holds the splice positions of raw lists' items.
	listSplices sync.Pool
	// Admission is the admission step of every write.
	Admission admission.Chain
	// Guard authenticates, audits and authorizes every request.
	Guard filters.Guard
	// bodies writes the bodies of answers, recycling their compressors
	// and list buffers.
	bodies responsewriters.Bodies
	// WriteTimeout bounds a write of one object (filters.MaxWriteTimeout; tests
	// shorten it).
	WriteTimeout time.Duration
	// MaxRequestBodyBytes, minWatchTimeout and watchStallTimeout are
	// Options.MaxRequestBodyBytes, Options.MinWatchTimeout and
	// Options.WatchCache.StallTimeout.
	MaxRequestBodyBytes int64
	MinWatchTimeout     time.Duration
	WatchStallTimeout   time.Duration
}
