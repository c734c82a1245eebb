package resourceversion

import (
	"fmt"
	"net/url"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// listOptionsKind is the kind kube-apiserver names in a 422 about query
// parameters: ListOptions.meta.k8s.io.
var listOptionsKind = meta.GroupVersionKind{Group: "meta.k8s.io", Kind: "ListOptions"}

// List is a parsed list request (not a watch).
type List struct {
	// Semantics is one of the five; see the table in ParseList.
	Semantics Semantics
	// Revision is the revision for NotOlderThan, Exact and Continuation. For
	// Continuation it is 0 when the token asks for the current revision (the
	// token kube-apiserver hands out with a 410 for an expired continuation).
	Revision int64
	// Limit caps the page size; 0 means no limit. Zero and negative limits
	// are both "no limit", as in kube-apiserver. With Semantics Any a server
	// may ignore it and return everything, as kube-apiserver's cache long
	// did.
	Limit int64
	// Continue is the decoded token for Continuation, nil otherwise.
	Continue *ContinueToken
}

// ParseList reads a list request's parameters. The table of the API
// concepts page, with resourceVersionMatch down and resourceVersion across:
//
//	match         paging              unset        "0"           "N"
//	unset         no limit            MostRecent   Any           NotOlderThan
//	unset         limit, no continue  MostRecent   Any           Exact (legacy)
//	unset         continue            Continuation Continuation  400
//	Exact         no continue         422          422           Exact
//	NotOlderThan  no continue         422          Any           NotOlderThan
//	Exact or NotOlderThan with continue: 422
//
// A continue token is honoured with or without limit. sendInitialEvents is
// forbidden on a list (422). allowWatchBookmarks and timeoutSeconds are
// decoded (a malformed timeoutSeconds is a 400) but mean nothing here; a
// request with watch=true is the caller's to route to [ParseWatch].
func ParseList(q url.Values) (List, error) {
	o, err := decodeOptions(q)
	if err != nil {
		return List{}, err
	}
	if errs := validateList(o); len(errs) > 0 {
		return List{}, status.Invalid(listOptionsKind, "", errs)
	}
	rev, err := parseResourceVersion(o.rv)
	if err != nil {
		return List{}, err
	}
	l := List{Limit: max(o.limit, 0)}
	if o.cont != "" {
		t, err := DecodeContinue(o.cont)
		if err != nil {
			return List{}, err
		}
		if o.rv != "" && o.rv != "0" {
			return List{}, status.BadRequest("specifying resource version is not allowed when using continue")
		}
		l.Semantics, l.Continue = Continuation, &t
		l.Revision = max(t.Revision, 0)
		return l, nil
	}
	l.Semantics, l.Revision = listSemantics(o, rev)
	return l, nil
}

// listSemantics applies the table to a validated request without a continue
// token. Where kube-apiserver compares the string "0" it does so here too;
// elsewhere a numerically zero resourceVersion such as "00" reads like "0",
// and an Exact or legacy-Exact read of revision 0 is a read at the current
// revision, as kube-apiserver's etcd path does.
func listSemantics(o options, rev int64) (Semantics, int64) {
	switch {
	case o.rv == "":
		return MostRecent, 0
	case o.match == matchExact, o.match == "" && o.limit > 0 && o.rv != "0":
		if rev == 0 {
			return MostRecent, 0
		}
		return Exact, rev
	case rev == 0:
		return Any, 0
	default:
		return NotOlderThan, rev
	}
}

// validateList mirrors kube-apiserver's ValidateListOptions for a list.
func validateList(o options) status.FieldErrors {
	var errs status.FieldErrors
	path := status.NewPath("resourceVersionMatch")
	if o.match != "" {
		if o.rv == "" {
			errs = append(errs, status.ForbiddenField(path, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if o.cont != "" {
			errs = append(errs, status.ForbiddenField(path, "resourceVersionMatch is forbidden when continue is provided"))
		}
		if o.match != matchExact && o.match != matchNotOlderThan {
			errs = append(errs, status.NotSupported(path, o.match, []string{matchExact, matchNotOlderThan, ""}))
		}
		if o.match == matchExact && o.rv == "0" {
			errs = append(errs, status.ForbiddenField(path, fmt.Sprintf("resourceVersionMatch %q is forbidden for resourceVersion %q", "exact", "0")))
		}
	}
	if o.sendInitial != nil {
		errs = append(errs, status.ForbiddenField(status.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
	}
	return errs
}
