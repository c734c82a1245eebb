package resourceversion

import (
	"net/url"

	"github.com/kapi-dev/kapi/status"
)

// Watch is a parsed watch request.
type Watch struct {
	// Semantics says where the watch starts:
	//   - MostRecent: at the store's current revision (a consistent read);
	//   - Any: at any revision, the cache's current one is fine;
	//   - NotOlderThan: at a revision not older than Revision (only with
	//     initial events);
	//   - Exact: right after Revision; the client has the state at Revision
	//     and gets every change after it (410 once Revision is compacted).
	Semantics Semantics
	// Revision is the requested resourceVersion for NotOlderThan and Exact,
	// else 0.
	Revision int64
	// SendInitialEvents asks for a synthetic ADDED event for every object in
	// the state the watch starts from, before the changes after it.
	SendInitialEvents bool
	// InitialEventsEndBookmark asks for a BOOKMARK annotated
	// k8s.io/initial-events-end: "true" right after the initial events. As in
	// kube-apiserver it is set when initial events are sent and
	// allowWatchBookmarks=true; that includes a plain watch from
	// resourceVersion unset or "0", which kube-apiserver turns into a
	// streaming list (sendInitialEvents=true, NotOlderThan).
	InitialEventsEndBookmark bool
	// AllowBookmarks is allowWatchBookmarks: periodic BOOKMARK events may be
	// sent.
	AllowBookmarks bool
	// TimeoutSeconds is timeoutSeconds; 0 means none was given (or 0, which
	// kube-apiserver treats alike). A negative value is kept: kube-apiserver
	// ends such a watch at once.
	TimeoutSeconds int64
}

// ParseWatch reads a watch request's parameters.
//
// Without sendInitialEvents (the API concepts table for watch):
//
//	resourceVersion unset  MostRecent, initial events ("Get State and Start at Most Recent")
//	resourceVersion "0"    Any, initial events ("Get State and Start at Any")
//	resourceVersion "N"    Exact: changes after N, no initial events ("Start at Exact")
//
// The first two are what kube-apiserver makes of them: it defaults
// sendInitialEvents=true and resourceVersionMatch=NotOlderThan, which is why
// they end with the initial-events-end bookmark when bookmarks are allowed,
// and why continue with them is rejected (422).
//
// With sendInitialEvents, which requires resourceVersionMatch=NotOlderThan:
//
//	                        unset       "0"   "N"
//	sendInitialEvents=true  MostRecent  Any   NotOlderThan N   (initial events)
//	sendInitialEvents=false MostRecent  Any   Exact N          (no initial events)
//
// limit is decoded (a malformed one is a 400) and ignored.
func ParseWatch(q url.Values) (Watch, error) {
	o, err := decodeOptions(q)
	if err != nil {
		return Watch{}, err
	}
	defaultWatch(&o)
	if errs := validateWatch(o); len(errs) > 0 {
		return Watch{}, status.Invalid(listOptionsKind, "", errs)
	}
	rev, err := parseResourceVersion(o.rv)
	if err != nil {
		return Watch{}, err
	}
	w := Watch{AllowBookmarks: o.allowBookmarks, TimeoutSeconds: o.timeoutSeconds}
	switch {
	case o.sendInitial != nil && *o.sendInitial:
		w.SendInitialEvents = true
		w.InitialEventsEndBookmark = o.allowBookmarks
		w.Semantics, w.Revision = watchStart(o.rv, rev, NotOlderThan)
	case o.sendInitial != nil:
		w.Semantics, w.Revision = watchStart(o.rv, rev, Exact)
	case rev == 0:
		// A resourceVersion that is zero but not "0", such as "00": kube-
		// apiserver does not default it and serves the legacy rv=0 watch.
		w.Semantics, w.SendInitialEvents = Any, true
	default:
		w.Semantics, w.Revision = Exact, rev
	}
	return w, nil
}

// watchStart maps resourceVersion unset / zero / N to MostRecent / Any / the
// given semantics at N.
func watchStart(rv string, rev int64, atN Semantics) (Semantics, int64) {
	switch {
	case rv == "":
		return MostRecent, 0
	case rev == 0:
		return Any, 0
	default:
		return atN, rev
	}
}

// defaultWatch mirrors kube-apiserver's SetListOptionsDefaults with the
// WatchList feature on (its default): a watch from resourceVersion unset or
// "0" that names neither sendInitialEvents nor resourceVersionMatch becomes
// sendInitialEvents=true, resourceVersionMatch=NotOlderThan.
func defaultWatch(o *options) {
	if o.sendInitial != nil || o.match != "" || (o.rv != "" && o.rv != "0") {
		return
	}
	on := true
	o.sendInitial, o.match = &on, matchNotOlderThan
}

// validateWatch mirrors kube-apiserver's ValidateListOptions for a watch.
func validateWatch(o options) status.FieldErrors {
	var errs status.FieldErrors
	path := status.NewPath("resourceVersionMatch")
	if o.sendInitial != nil && o.match != matchNotOlderThan {
		errs = append(errs, status.ForbiddenField(path, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
	}
	if o.match != "" {
		if o.sendInitial == nil {
			errs = append(errs, status.ForbiddenField(path, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if o.match != matchNotOlderThan {
			errs = append(errs, status.NotSupported(path, o.match, []string{matchNotOlderThan}))
		}
		if o.cont != "" {
			errs = append(errs, status.ForbiddenField(path, "resourceVersionMatch is forbidden when continue is provided"))
		}
	}
	return errs
}
