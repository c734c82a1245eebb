package resourceversion

import "testing"

// TestGetTable covers the seed table for get and the malformed values.
func TestGetTable(t *testing.T) {
	cases := []struct {
		name  string
		query string
		want  Get
		err   *wantErr
	}{
		{"rv unset: MostRecent", "", Get{Semantics: MostRecent}, nil},
		{"rv 0: Any", "resourceVersion=0", Get{Semantics: Any}, nil},
		{"rv N: NotOlderThan", "resourceVersion=7", Get{Semantics: NotOlderThan, Revision: 7}, nil},
		{"rv empty is unset", "resourceVersion=", Get{Semantics: MostRecent}, nil},
		{"rv 00 reads like 0", "resourceVersion=00", Get{Semantics: Any}, nil},
		{"list parameters are not get options", "limit=abc&resourceVersionMatch=Foo&continue=x&sendInitialEvents=true&timeoutSeconds=y",
			Get{Semantics: MostRecent}, nil},
		{"rv malformed", "resourceVersion=abc", Get{}, invalidRV("abc", "invalid syntax")},
		{"rv negative", "resourceVersion=-1", Get{}, invalidRV("-1", "invalid syntax")},
		{"rv beyond int64", "resourceVersion=18446744073709551615", Get{}, invalidRV("18446744073709551615", "value out of range")},
		{"rv beyond uint64", "resourceVersion=18446744073709551616", Get{}, invalidRV("18446744073709551616", "value out of range")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseGet(query(t, tc.query))
			checkErr(t, err, tc.err)
			if tc.err == nil && got != tc.want {
				t.Fatalf("ParseGet(%q) = %+v, want %+v", tc.query, got, tc.want)
			}
		})
	}
}
