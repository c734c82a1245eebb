package resourceversion

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tok is a well-formed token as kube-apiserver would emit after "default/foo".
var (
	tokToken = ContinueToken{Revision: 42, StartKey: "default/foo\x00"}
	tok      = EncodeContinue(tokToken)
)

func continuation(limit int64) List {
	t := tokToken
	return List{Semantics: Continuation, Revision: 42, Limit: limit, Continue: &t}
}

type listCase struct {
	name  string
	query string
	want  List
	err   *wantErr
}

func runList(t *testing.T, cases []listCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseList(query(t, tc.query))
			checkErr(t, err, tc.err)
			if tc.err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("ParseList(%q) (-want +got):\n%s", tc.query, diff)
			}
		})
	}
}

// TestListTable covers every cell of the seed table "resourceVersionMatch
// and paging parameters for list": rows are match × paging, columns are
// resourceVersion unset / "0" / "N".
func TestListTable(t *testing.T) {
	runList(t, []listCase{
		// match unset, limit unset
		{"match unset/limit unset/rv unset: MostRecent", "", List{Semantics: MostRecent}, nil},
		{"match unset/limit unset/rv 0: Any", "resourceVersion=0", List{Semantics: Any}, nil},
		{"match unset/limit unset/rv N: NotOlderThan", "resourceVersion=7", List{Semantics: NotOlderThan, Revision: 7}, nil},
		// match unset, limit=n, continue unset
		{"match unset/limit/rv unset: MostRecent", "limit=5", List{Semantics: MostRecent, Limit: 5}, nil},
		{"match unset/limit/rv 0: Any", "limit=5&resourceVersion=0", List{Semantics: Any, Limit: 5}, nil},
		{"match unset/limit/rv N: Exact (legacy)", "limit=5&resourceVersion=7", List{Semantics: Exact, Revision: 7, Limit: 5}, nil},
		// match unset, limit=n, continue=token
		{"match unset/limit+continue/rv unset: Continuation", "limit=5&continue=" + tok, continuation(5), nil},
		{"match unset/limit+continue/rv 0: Continuation", "limit=5&continue=" + tok + "&resourceVersion=0", continuation(5), nil},
		{"match unset/limit+continue/rv N: 400", "limit=5&continue=" + tok + "&resourceVersion=7", List{},
			badRequest("specifying resource version is not allowed when using continue")},
		// match Exact, limit unset
		{"match Exact/limit unset/rv unset: 422", "resourceVersionMatch=Exact", List{}, invalid(causeMatchWithoutRV)},
		{"match Exact/limit unset/rv 0: 422", "resourceVersionMatch=Exact&resourceVersion=0", List{}, invalid(causeExactZero)},
		{"match Exact/limit unset/rv N: Exact", "resourceVersionMatch=Exact&resourceVersion=7", List{Semantics: Exact, Revision: 7}, nil},
		// match Exact, limit=n, continue unset
		{"match Exact/limit/rv unset: 422", "resourceVersionMatch=Exact&limit=5", List{}, invalid(causeMatchWithoutRV)},
		{"match Exact/limit/rv 0: 422", "resourceVersionMatch=Exact&limit=5&resourceVersion=0", List{}, invalid(causeExactZero)},
		{"match Exact/limit/rv N: Exact", "resourceVersionMatch=Exact&limit=5&resourceVersion=7", List{Semantics: Exact, Revision: 7, Limit: 5}, nil},
		// match NotOlderThan, limit unset
		{"match NotOlderThan/limit unset/rv unset: 422", "resourceVersionMatch=NotOlderThan", List{}, invalid(causeMatchWithoutRV)},
		{"match NotOlderThan/limit unset/rv 0: Any", "resourceVersionMatch=NotOlderThan&resourceVersion=0", List{Semantics: Any}, nil},
		{"match NotOlderThan/limit unset/rv N: NotOlderThan", "resourceVersionMatch=NotOlderThan&resourceVersion=7", List{Semantics: NotOlderThan, Revision: 7}, nil},
		// match NotOlderThan, limit=n, continue unset
		{"match NotOlderThan/limit/rv unset: 422", "resourceVersionMatch=NotOlderThan&limit=5", List{}, invalid(causeMatchWithoutRV)},
		{"match NotOlderThan/limit/rv 0: Any", "resourceVersionMatch=NotOlderThan&limit=5&resourceVersion=0", List{Semantics: Any, Limit: 5}, nil},
		{"match NotOlderThan/limit/rv N: NotOlderThan", "resourceVersionMatch=NotOlderThan&limit=5&resourceVersion=7", List{Semantics: NotOlderThan, Revision: 7, Limit: 5}, nil},
	})
}

// TestListMatchWithContinue: the table has no row for a match with a
// continue token; kube-apiserver rejects every such cell.
func TestListMatchWithContinue(t *testing.T) {
	c := "&limit=5&continue=" + tok
	runList(t, []listCase{
		{"Exact/rv unset", "resourceVersionMatch=Exact" + c, List{}, invalid(causeMatchWithoutRV, causeMatchContinue)},
		{"Exact/rv 0", "resourceVersionMatch=Exact&resourceVersion=0" + c, List{}, invalid(causeMatchContinue, causeExactZero)},
		{"Exact/rv N", "resourceVersionMatch=Exact&resourceVersion=7" + c, List{}, invalid(causeMatchContinue)},
		{"NotOlderThan/rv unset", "resourceVersionMatch=NotOlderThan" + c, List{}, invalid(causeMatchWithoutRV, causeMatchContinue)},
		{"NotOlderThan/rv 0", "resourceVersionMatch=NotOlderThan&resourceVersion=0" + c, List{}, invalid(causeMatchContinue)},
		{"NotOlderThan/rv N", "resourceVersionMatch=NotOlderThan&resourceVersion=7" + c, List{}, invalid(causeMatchContinue)},
		{"Exact/rv N/continue without limit", "resourceVersionMatch=Exact&resourceVersion=7&continue=" + tok, List{}, invalid(causeMatchContinue)},
	})
}

func TestListInvalidCombinations(t *testing.T) {
	runList(t, []listCase{
		{"unsupported match with rv", "resourceVersionMatch=Foo&resourceVersion=7", List{}, invalid(listMatchNotSupported("Foo"))},
		{"unsupported match without rv", "resourceVersionMatch=Foo", List{}, invalid(causeMatchWithoutRV, listMatchNotSupported("Foo"))},
		{"match is case sensitive", "resourceVersionMatch=exact&resourceVersion=7", List{}, invalid(listMatchNotSupported("exact"))},
		{"unsupported match with rv 0 and continue", "resourceVersionMatch=Foo&resourceVersion=0&continue=" + tok, List{},
			invalid(causeMatchContinue, listMatchNotSupported("Foo"))},
		{"sendInitialEvents=true on list", "sendInitialEvents=true", List{}, invalid(causeSendInitialList)},
		{"sendInitialEvents=false on list", "sendInitialEvents=false", List{}, invalid(causeSendInitialList)},
		{"sendInitialEvents empty on list", "sendInitialEvents=", List{}, invalid(causeSendInitialList)},
		{"sendInitialEvents with NotOlderThan on list", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=0", List{}, invalid(causeSendInitialList)},
		{"everything wrong at once", "resourceVersionMatch=Exact&resourceVersion=0&continue=x&sendInitialEvents=1", List{},
			invalid(causeMatchContinue, causeExactZero, causeSendInitialList)},
	})
}

func TestListMalformedParameters(t *testing.T) {
	runList(t, []listCase{
		{"limit not a number", "limit=abc", List{}, badRequest(`strconv.ParseInt: parsing "abc": invalid syntax`)},
		{"limit empty", "limit=", List{}, badRequest(`strconv.ParseInt: parsing "": invalid syntax`)},
		{"limit float", "limit=1.5", List{}, badRequest(`strconv.ParseInt: parsing "1.5": invalid syntax`)},
		{"limit overflow", "limit=9223372036854775808", List{}, badRequest(`strconv.ParseInt: parsing "9223372036854775808": value out of range`)},
		{"timeoutSeconds malformed", "timeoutSeconds=0.1s", List{}, badRequest(`strconv.ParseInt: parsing "0.1s": invalid syntax`)},
		{"timeoutSeconds reported before limit", "limit=x&timeoutSeconds=y", List{}, badRequest(`strconv.ParseInt: parsing "y": invalid syntax`)},
		{"decoding before validation", "limit=x&resourceVersionMatch=Exact", List{}, badRequest(`strconv.ParseInt: parsing "x": invalid syntax`)},
		{"rv not a number", "resourceVersion=abc", List{}, invalidRV("abc", "invalid syntax")},
		{"rv negative", "resourceVersion=-1", List{}, invalidRV("-1", "invalid syntax")},
		{"rv signed", "resourceVersion=%2B1", List{}, invalidRV("+1", "invalid syntax")},
		{"rv with space", "resourceVersion=%201", List{}, invalidRV(" 1", "invalid syntax")},
		{"rv beyond int64", "resourceVersion=9223372036854775808", List{}, invalidRV("9223372036854775808", "value out of range")},
		{"rv malformed with limit", "resourceVersion=abc&limit=5", List{}, invalidRV("abc", "invalid syntax")},
		{"rv malformed with Exact", "resourceVersion=abc&resourceVersionMatch=Exact", List{}, invalidRV("abc", "invalid syntax")},
		{"validation before rv parsing", "resourceVersion=abc&resourceVersionMatch=Foo", List{}, invalid(listMatchNotSupported("Foo"))},
		{"rv checked before continue", "resourceVersion=abc&continue=" + tok, List{}, invalidRV("abc", "invalid syntax")},
		{"continue checked before rv-with-continue", "resourceVersion=7&continue=%21%21", List{},
			badRequest("invalid continue token: continue key is not valid: illegal base64 data at input byte 0")},
		{"continue garbage", "continue=invalidContinueToken", List{},
			badRequest(`invalid continue token: continue key is not valid: invalid character '\u008a' looking for beginning of value`)},
	})
}

func TestListOtherCases(t *testing.T) {
	expired := EncodeContinue(ContinueToken{Revision: -1, StartKey: "b"})
	runList(t, []listCase{
		{"continue without limit", "continue=" + tok, continuation(0), nil},
		{"continue with limit 0", "limit=0&continue=" + tok, continuation(0), nil},
		{"continue at current revision", "continue=" + expired, List{Semantics: Continuation, Revision: 0,
			Continue: &ContinueToken{Revision: -1, StartKey: "b"}}, nil},
		{"negative limit is no limit", "limit=-3", List{Semantics: MostRecent}, nil},
		{"negative limit with rv N is not legacy Exact", "limit=-3&resourceVersion=7", List{Semantics: NotOlderThan, Revision: 7}, nil},
		{"limit 0 is no limit", "limit=0&resourceVersion=7", List{Semantics: NotOlderThan, Revision: 7}, nil},
		{"first value wins", "resourceVersion=7&resourceVersion=abc", List{Semantics: NotOlderThan, Revision: 7}, nil},
		{"explicit empty rv is unset", "resourceVersion=&limit=5", List{Semantics: MostRecent, Limit: 5}, nil},
		{"empty match is unset", "resourceVersionMatch=&resourceVersion=7", List{Semantics: NotOlderThan, Revision: 7}, nil},
		{"rv 00 reads like 0", "resourceVersion=00", List{Semantics: Any}, nil},
		{"rv 00 with limit is a read at the current revision", "resourceVersion=00&limit=5", List{Semantics: MostRecent, Limit: 5}, nil},
		{"rv 00 with Exact is a read at the current revision", "resourceVersion=00&resourceVersionMatch=Exact", List{Semantics: MostRecent}, nil},
		{"rv 00 with continue is refused", "resourceVersion=00&continue=" + tok, List{},
			badRequest("specifying resource version is not allowed when using continue")},
		{"leading zeros", "resourceVersion=007", List{Semantics: NotOlderThan, Revision: 7}, nil},
		{"watch-only parameters are ignored", "allowWatchBookmarks=true&timeoutSeconds=30&watch=true", List{Semantics: MostRecent}, nil},
	})
}
