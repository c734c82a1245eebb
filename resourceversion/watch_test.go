package resourceversion

import (
	"testing"
)

type watchCase struct {
	name  string
	query string
	want  Watch
	err   *wantErr
}

func runWatch(t *testing.T, cases []watchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseWatch(query(t, tc.query))
			checkErr(t, err, tc.err)
			if tc.err == nil && got != tc.want {
				t.Fatalf("ParseWatch(%q) = %+v, want %+v", tc.query, got, tc.want)
			}
		})
	}
}

// TestWatchTable covers the seed table for watch: resourceVersion unset /
// "0" / "N", with and without bookmarks.
func TestWatchTable(t *testing.T) {
	runWatch(t, []watchCase{
		{"rv unset: get state and start at most recent", "",
			Watch{Semantics: MostRecent, SendInitialEvents: true}, nil},
		{"rv 0: get state and start at any", "resourceVersion=0",
			Watch{Semantics: Any, SendInitialEvents: true}, nil},
		{"rv N: start at exact", "resourceVersion=10245",
			Watch{Semantics: Exact, Revision: 10245}, nil},
		{"rv unset with bookmarks: initial-events-end bookmark", "allowWatchBookmarks=true",
			Watch{Semantics: MostRecent, SendInitialEvents: true, InitialEventsEndBookmark: true, AllowBookmarks: true}, nil},
		{"rv 0 with bookmarks: initial-events-end bookmark", "resourceVersion=0&allowWatchBookmarks=true",
			Watch{Semantics: Any, SendInitialEvents: true, InitialEventsEndBookmark: true, AllowBookmarks: true}, nil},
		{"rv N with bookmarks: no initial events", "resourceVersion=10245&allowWatchBookmarks=true",
			Watch{Semantics: Exact, Revision: 10245, AllowBookmarks: true}, nil},
		{"explicit empty rv is unset", "resourceVersion=",
			Watch{Semantics: MostRecent, SendInitialEvents: true}, nil},
	})
}

// TestWatchStreaming covers "Streaming lists": sendInitialEvents with
// resourceVersionMatch=NotOlderThan, for resourceVersion unset / "0" / "N".
func TestWatchStreaming(t *testing.T) {
	const on = "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
	const off = "sendInitialEvents=false&resourceVersionMatch=NotOlderThan"
	runWatch(t, []watchCase{
		{"true/rv unset: consistent initial state", on,
			Watch{Semantics: MostRecent, SendInitialEvents: true, InitialEventsEndBookmark: true, AllowBookmarks: true}, nil},
		{"true/rv empty: consistent initial state (seed example)", on + "&resourceVersion=",
			Watch{Semantics: MostRecent, SendInitialEvents: true, InitialEventsEndBookmark: true, AllowBookmarks: true}, nil},
		{"true/rv 0: any initial state", on + "&resourceVersion=0",
			Watch{Semantics: Any, SendInitialEvents: true, InitialEventsEndBookmark: true, AllowBookmarks: true}, nil},
		{"true/rv N: initial state not older than N", on + "&resourceVersion=7",
			Watch{Semantics: NotOlderThan, Revision: 7, SendInitialEvents: true, InitialEventsEndBookmark: true, AllowBookmarks: true}, nil},
		{"true without bookmarks: no end bookmark, not rejected", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
			Watch{Semantics: MostRecent, SendInitialEvents: true}, nil},
		{"true with allowWatchBookmarks=false", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=false",
			Watch{Semantics: MostRecent, SendInitialEvents: true}, nil},
		{"false/rv unset: start at most recent, no initial events", off,
			Watch{Semantics: MostRecent}, nil},
		{"false/rv 0: start at any, no initial events", off + "&resourceVersion=0",
			Watch{Semantics: Any}, nil},
		{"false/rv N: changes after N", off + "&resourceVersion=7",
			Watch{Semantics: Exact, Revision: 7}, nil},
		{"false with bookmarks: no end bookmark", off + "&allowWatchBookmarks=true",
			Watch{Semantics: MostRecent, AllowBookmarks: true}, nil},
		{"sendInitialEvents empty means true", "sendInitialEvents=&resourceVersionMatch=NotOlderThan&resourceVersion=0",
			Watch{Semantics: Any, SendInitialEvents: true}, nil},
		{"sendInitialEvents FALSE means false", "sendInitialEvents=FALSE&resourceVersionMatch=NotOlderThan&resourceVersion=0",
			Watch{Semantics: Any}, nil},
		{"sendInitialEvents 0 means false", "sendInitialEvents=0&resourceVersionMatch=NotOlderThan&resourceVersion=7",
			Watch{Semantics: Exact, Revision: 7}, nil},
	})
}

func TestWatchInvalidCombinations(t *testing.T) {
	runWatch(t, []watchCase{
		{"sendInitialEvents without match", "sendInitialEvents=true", Watch{}, invalid(causeSendInitialMatch)},
		{"sendInitialEvents=false without match", "sendInitialEvents=false&resourceVersion=7", Watch{}, invalid(causeSendInitialMatch)},
		{"sendInitialEvents with Exact", "sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=7", Watch{},
			invalid(causeSendInitialMatch, watchMatchNotSupported("Exact"))},
		{"match without sendInitialEvents, rv N", "resourceVersionMatch=NotOlderThan&resourceVersion=7", Watch{}, invalid(causeWatchMatchAlone)},
		{"match without sendInitialEvents, rv unset", "resourceVersionMatch=NotOlderThan", Watch{}, invalid(causeWatchMatchAlone)},
		{"Exact without sendInitialEvents", "resourceVersionMatch=Exact&resourceVersion=7", Watch{},
			invalid(causeWatchMatchAlone, watchMatchNotSupported("Exact"))},
		{"unsupported match", "resourceVersionMatch=Foo&sendInitialEvents=true", Watch{},
			invalid(causeSendInitialMatch, watchMatchNotSupported("Foo"))},
		{"streaming with continue", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&continue=" + tok, Watch{}, invalid(causeMatchContinue)},
		{"plain watch from rv unset with continue (defaulted match)", "continue=" + tok, Watch{}, invalid(causeMatchContinue)},
		{"plain watch from rv 0 with continue (defaulted match)", "resourceVersion=0&continue=x", Watch{}, invalid(causeMatchContinue)},
		{"all at once", "resourceVersionMatch=Exact&continue=x", Watch{},
			invalid(causeWatchMatchAlone, watchMatchNotSupported("Exact"), causeMatchContinue)},
	})
}

func TestWatchOtherCases(t *testing.T) {
	runWatch(t, []watchCase{
		{"rv malformed", "resourceVersion=abc", Watch{}, invalidRV("abc", "invalid syntax")},
		{"rv malformed when streaming", "resourceVersion=-1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", Watch{}, invalidRV("-1", "invalid syntax")},
		{"validation before rv parsing", "resourceVersion=abc&resourceVersionMatch=Foo", Watch{},
			invalid(causeWatchMatchAlone, watchMatchNotSupported("Foo"))},
		{"timeoutSeconds", "resourceVersion=7&timeoutSeconds=30", Watch{Semantics: Exact, Revision: 7, TimeoutSeconds: 30}, nil},
		{"timeoutSeconds negative kept", "resourceVersion=7&timeoutSeconds=-1", Watch{Semantics: Exact, Revision: 7, TimeoutSeconds: -1}, nil},
		{"timeoutSeconds malformed", "timeoutSeconds=0.1s", Watch{}, badRequest(`strconv.ParseInt: parsing "0.1s": invalid syntax`)},
		{"timeoutSeconds empty", "timeoutSeconds=", Watch{}, badRequest(`strconv.ParseInt: parsing "": invalid syntax`)},
		{"limit ignored", "resourceVersion=7&limit=5", Watch{Semantics: Exact, Revision: 7}, nil},
		{"limit malformed", "limit=five", Watch{}, badRequest(`strconv.ParseInt: parsing "five": invalid syntax`)},
		{"continue with rv N is ignored", "resourceVersion=7&continue=x", Watch{Semantics: Exact, Revision: 7}, nil},
		{"allowWatchBookmarks empty means true", "resourceVersion=7&allowWatchBookmarks=", Watch{Semantics: Exact, Revision: 7, AllowBookmarks: true}, nil},
		{"allowWatchBookmarks 0 means false", "resourceVersion=7&allowWatchBookmarks=0", Watch{Semantics: Exact, Revision: 7}, nil},
		{"allowWatchBookmarks False means false", "resourceVersion=7&allowWatchBookmarks=False", Watch{Semantics: Exact, Revision: 7}, nil},
		{"allowWatchBookmarks yes means true", "resourceVersion=7&allowWatchBookmarks=yes", Watch{Semantics: Exact, Revision: 7, AllowBookmarks: true}, nil},
		{"rv 00 is the legacy rv=0 watch without defaulting", "resourceVersion=00&allowWatchBookmarks=true",
			Watch{Semantics: Any, SendInitialEvents: true, AllowBookmarks: true}, nil},
	})
}
