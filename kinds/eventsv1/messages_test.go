package eventsv1_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/kinds/eventsv1"
)

// TestInvalidEventMessages: a refused Event write answers what
// kube-apiserver answers, word for word (taken from v1.37): the core
// Event named as the kind whichever API wrote it, the core field names,
// kube's values and details.
func TestInvalidEventMessages(t *testing.T) {
	s := apiserver.New(apiserver.Options{})
	s.Register(corev1.EventKind()).Register(eventsv1.EventKind())
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	const (
		coreTeam   = "/api/v1/namespaces/team/events"
		eventsTeam = "/apis/events.k8s.io/v1/namespaces/team/events"
		eventTime  = `"eventTime":"2026-01-02T03:04:05.000001Z"`
		qualified  = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	)
	reporter := `"reason":"R","action":"A","reportingController":"rc","reportingInstance":"ri","type":"Normal"`
	for _, c := range []struct {
		name, path, body, want string
	}{
		{"core, cluster object outside default", coreTeam,
			`{"metadata":{"name":"e1"},"involvedObject":{"kind":"Node","name":"n"},"reason":"R"}`,
			`Event "e1" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace`},
		{"core, new style without reporter", coreTeam,
			`{"metadata":{"name":"e2"},` + eventTime + `,"involvedObject":{"kind":"Pod","name":"n","namespace":"team"}}`,
			`Event "e2" is invalid: [reportingComponent: Required value, reportingComponent: Invalid value: "": name part must be non-empty, reportingComponent: Invalid value: "": ` + qualified + `, reportingInstance: Required value, action: Required value, reason: Required value]`},
		{"events.k8s.io, cluster object outside default", eventsTeam,
			`{"metadata":{"name":"e3"},` + eventTime + `,"regarding":{"kind":"Node","name":"n"},` + reporter + `}`,
			`Event "e3" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace`},
		// (Without an eventTime, or a series without its lastObservedTime,
		// the write is refused before: those are required fields of the
		// Go types, checked as a custom resource's would be.)
		{"events.k8s.io, no type", eventsTeam,
			`{"metadata":{"name":"e4"},` + eventTime + `,"regarding":{"kind":"Pod","name":"n","namespace":"team"},"reason":"R","action":"A","reportingController":"rc","reportingInstance":"ri"}`,
			`Event "e4" is invalid: type: Invalid value: "": has invalid value: `},
		{"events.k8s.io, bad type and reporter", eventsTeam,
			`{"metadata":{"name":"e5"},` + eventTime + `,"regarding":{"kind":"Pod","name":"n","namespace":"team"},"reason":"R","action":"A","reportingController":"bad rc!","reportingInstance":"ri","type":"Odd"}`,
			`Event "e5" is invalid: [reportingController: Invalid value: "bad rc!": ` + qualified + `, type: Invalid value: "": has invalid value: Odd]`},
		{"events.k8s.io, long note", eventsTeam,
			`{"metadata":{"name":"e6"},` + eventTime + `,"regarding":{"kind":"Pod","name":"n","namespace":"team"},` + reporter + `,"note":"` + strings.Repeat("x", 1100) + `"}`,
			`Event "e6" is invalid: message: Invalid value: "": can have at most 1024 characters`},
		{"events.k8s.io, core fields and a series of one", eventsTeam,
			`{"metadata":{"name":"e7"},` + eventTime + `,"regarding":{"kind":"Pod","name":"n","namespace":"team"},` + reporter + `,"deprecatedCount":2,"deprecatedSource":{"component":"x"},"series":{"count":1,"lastObservedTime":"2026-01-02T03:05:05.000000Z"}}`,
			`Event "e7" is invalid: [series.count: Invalid value: "": should be at least 2, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := call(t, "POST", ts.URL+c.path, c.body, http.StatusUnprocessableEntity)
			if d := cmp.Diff(c.want, at(st, "message")); d != "" {
				t.Errorf("message (-want +got):\n%s", d)
			}
			if kind, group := at(st, "details.kind"), at(st, "details.group"); kind != "Event" || group != nil {
				t.Errorf("details name %v %v, want the core Event", group, kind)
			}
		})
	}

	// Everything but the metadata and the series is immutable through
	// events.k8s.io, struct values shown with Go field names.
	call(t, "POST", ts.URL+eventsTeam, `{"metadata":{"name":"im"},`+eventTime+`,"regarding":{"kind":"Pod","name":"n","namespace":"team"},`+reporter+`,"note":"n"}`, http.StatusCreated)
	patch := `{"reason":"S","note":"m","regarding":{"name":"o"},"type":"Warning","eventTime":"2026-01-02T03:04:06.000001Z","action":"B",
		"reportingController":"rc2","reportingInstance":"ri2","related":{"kind":"X"},"deprecatedCount":3,"deprecatedSource":{"host":"h"},
		"deprecatedFirstTimestamp":"2026-01-02T03:04:05Z","deprecatedLastTimestamp":"2026-01-02T03:04:05Z"}`
	st := callWith(t, "PATCH", ts.URL+eventsTeam+"/im", "application/merge-patch+json", patch, http.StatusUnprocessableEntity)
	want := `Event "im" is invalid: [` +
		`involvedObject: Invalid value: {"Kind":"Pod","Namespace":"team","Name":"o","UID":"","APIVersion":"","ResourceVersion":"","FieldPath":""}: field is immutable, ` +
		`reason: Invalid value: "S": field is immutable, message: Invalid value: "m": field is immutable, ` +
		`source: Invalid value: {"Component":"","Host":"h"}: field is immutable, ` +
		`firstTimestamp: Invalid value: "2026-01-02T03:04:05Z": field is immutable, lastTimestamp: Invalid value: "2026-01-02T03:04:05Z": field is immutable, ` +
		`count: Invalid value: 3: field is immutable, type: Invalid value: "Warning": field is immutable, ` +
		`eventTime: Invalid value: "2026-01-02T03:04:06.000001Z": field is immutable, action: Invalid value: "B": field is immutable, ` +
		`related: Invalid value: {"Kind":"X","Namespace":"","Name":"","UID":"","APIVersion":"","ResourceVersion":"","FieldPath":""}: field is immutable, ` +
		`reportingController: Invalid value: "rc2": field is immutable, reportingInstance: Invalid value: "ri2": field is immutable]`
	if d := cmp.Diff(want, at(st, "message")); d != "" {
		t.Errorf("immutable fields: message (-want +got):\n%s", d)
	}
}
