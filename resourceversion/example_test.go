package resourceversion_test

import (
	"fmt"
	"net/url"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
)

func Example() {
	// The first page of a paged list: a consistent read.
	first, _ := resourceversion.ParseList(url.Values{"limit": {"500"}})
	fmt.Println(first.Semantics, first.Limit)

	// The server answers with a token for the page after the last key.
	token := resourceversion.EncodeContinue(resourceversion.ContinueAfter(10245, "default/pod-500"))

	// The next request continues at the same revision.
	next, _ := resourceversion.ParseList(url.Values{"limit": {"500"}, "continue": {token}})
	fmt.Println(next.Semantics, next.Revision, fmt.Sprintf("%q", next.Continue.StartKey))

	// A streaming list: initial state not older than 10245, then changes.
	w, _ := resourceversion.ParseWatch(url.Values{
		"sendInitialEvents":    {"true"},
		"resourceVersionMatch": {"NotOlderThan"},
		"resourceVersion":      {"10245"},
		"allowWatchBookmarks":  {"true"},
	})
	fmt.Println(w.Semantics, w.Revision, w.SendInitialEvents, w.InitialEventsEndBookmark)

	// An invalid combination carries kube-apiserver's Status.
	_, err := resourceversion.ParseList(url.Values{"resourceVersionMatch": {"Exact"}})
	st := status.FromError(err)
	fmt.Println(st.Code, st.Reason)
	fmt.Println(st.Message)
	// Output:
	// MostRecent 500
	// Continuation 10245 "default/pod-500\x00"
	// NotOlderThan 10245 true true
	// 422 Invalid
	// ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided
}

func ExampleEncodeContinue() {
	t := resourceversion.ContinueToken{Revision: 42, StartKey: "ns/a\x00"}
	s := resourceversion.EncodeContinue(t)
	fmt.Println(s)
	back, err := resourceversion.DecodeContinue(s)
	fmt.Println(back == t, err)
	_, err = resourceversion.DecodeContinue("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDIsInN0YXJ0IjoiLi4vYSJ9")
	fmt.Println(err)
	// Output:
	// eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDIsInN0YXJ0IjoibnMvYVx1MDAwMCJ9
	// true <nil>
	// invalid continue token: continue key is not valid: ../a
}
