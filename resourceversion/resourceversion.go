package resourceversion

import (
	"math"
	"net/url"
	"strconv"

	"github.com/kapi-dev/kapi/status"
)

// Semantics says which revision a read may be served at.
type Semantics int

// The read semantics of the API concepts tables.
const (
	// MostRecent is a consistent read at the store's current revision.
	MostRecent Semantics = iota
	// Any accepts any revision; the cache's current one is fine
	// (resourceVersion="0").
	Any
	// NotOlderThan accepts any revision at or after Revision.
	NotOlderThan
	// Exact reads at exactly Revision (410 Gone once it is compacted). For a
	// watch it means "start right after Revision", with no initial events.
	Exact
	// Continuation reads the next page of a list at the continue token's
	// revision.
	Continuation
)

var semanticsNames = [...]string{"MostRecent", "Any", "NotOlderThan", "Exact", "Continuation"}

// String returns the constant's name.
func (s Semantics) String() string {
	if s >= 0 && int(s) < len(semanticsNames) {
		return semanticsNames[s]
	}
	return "Semantics(" + strconv.Itoa(int(s)) + ")"
}

// The resourceVersionMatch values.
const (
	matchExact        = "Exact"
	matchNotOlderThan = "NotOlderThan"
)

// Get is a parsed get request.
type Get struct {
	// Semantics is MostRecent (resourceVersion unset), Any ("0") or
	// NotOlderThan (any other value).
	Semantics Semantics
	// Revision is the requested resourceVersion for NotOlderThan, else 0.
	Revision int64
}

// ParseGet reads the resourceVersion of a get. Other parameters are not
// part of a get's options and are ignored, as kube-apiserver ignores them.
func ParseGet(q url.Values) (Get, error) {
	rv := first(q, "resourceVersion")
	rev, err := parseResourceVersion(rv)
	if err != nil {
		return Get{}, err
	}
	switch {
	case rv == "":
		return Get{Semantics: MostRecent}, nil
	case rev == 0:
		return Get{Semantics: Any}, nil
	default:
		return Get{Semantics: NotOlderThan, Revision: rev}, nil
	}
}

// options are the list and watch query parameters as kube-apiserver decodes
// them into ListOptions.
type options struct {
	rv, match, cont string
	limit           int64
	timeoutSeconds  int64
	sendInitial     *bool
	allowBookmarks  bool
}

// decodeOptions decodes the parameters in the order of ListOptions' fields,
// so that the first malformed one is the one reported, as kube-apiserver's
// parameter codec does. Booleans never fail: only absence, "0" and "false"
// (any case) are false. A present but malformed integer is a 400.
func decodeOptions(q url.Values) (options, error) {
	var o options
	var err error
	o.allowBookmarks = boolParam(q, "allowWatchBookmarks")
	o.rv = first(q, "resourceVersion")
	o.match = first(q, "resourceVersionMatch")
	if o.timeoutSeconds, err = intParam(q, "timeoutSeconds"); err != nil {
		return o, err
	}
	if o.limit, err = intParam(q, "limit"); err != nil {
		return o, err
	}
	o.cont = first(q, "continue")
	if v, ok := q["sendInitialEvents"]; ok && len(v) > 0 {
		b := boolParam(q, "sendInitialEvents")
		o.sendInitial = &b
	}
	return o, nil
}

func first(q url.Values, key string) string {
	if v := q[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func boolParam(q url.Values, key string) bool {
	v, ok := q[key]
	if !ok || len(v) == 0 {
		return false
	}
	return v[0] != "0" && !equalFold(v[0], "false")
}

func equalFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func intParam(q url.Values, key string) (int64, error) {
	v, ok := q[key]
	if !ok || len(v) == 0 {
		return 0, nil
	}
	n, err := strconv.ParseInt(v[0], 10, 64)
	if err != nil {
		return 0, status.BadRequest(err.Error())
	}
	return n, nil
}

// parseResourceVersion parses a non-empty resourceVersion as kube-apiserver's
// versioner does (an unsigned decimal); "" is 0. A malformed value is a 400
// with the message kube-apiserver's storage layer gives, for example
//
//	invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax
//
// kube-apiserver gives this 400 when the read goes to etcd; when its watch
// cache serves the read (get, watch, list without limit) it answers the
// same text without the prefix as a 500 with no reason, a known bug
// (kubernetes/kubernetes#101350, #139485) this package does not copy.
// Values above MaxInt64, which no revision reaches, are rejected the same
// way as out of range (kube-apiserver accepts up to MaxUint64).
func parseResourceVersion(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err == nil && n > math.MaxInt64 {
		err = &strconv.NumError{Func: "ParseUint", Num: rv, Err: strconv.ErrRange}
	}
	if err != nil {
		fe := status.InvalidValue(status.NewPath("resourceVersion"), rv, err.Error())
		return 0, status.BadRequest("invalid resource version: " + fe.Error())
	}
	return int64(n), nil
}
