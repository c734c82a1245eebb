package patch_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// Widget mirrors the Widget kind of DESIGN.md.
type Widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            WidgetSpec   `json:"spec,omitempty"`
	Status          WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Replicas *int32       `json:"replicas,omitempty" default:"1" minimum:"0" maximum:"1000"`
	Color    string       `json:"color,omitempty" pattern:"^[a-z]+$"`
	Size     string       `json:"size,omitempty"`
	Tags     []string     `json:"tags,omitempty" listType:"set"`
	Ports    []WidgetPort `json:"ports,omitempty" listType:"map" listMapKey:"name" patchStrategy:"merge" patchMergeKey:"name"`
}

type WidgetPort struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty" default:"\"TCP\""`
}

type WidgetStatus struct {
	ReadyReplicas      int32       `json:"readyReplicas,omitempty"`
	ObservedGeneration int64       `json:"observedGeneration,omitempty"`
	Selector           string      `json:"selector,omitempty"`
	Conditions         []Condition `json:"conditions,omitempty" listType:"map" listMapKey:"type"`
}

type Condition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty"`
}

func widgetSchema(t testing.TB) *schema.Schema {
	t.Helper()
	s, err := schema.FromType(reflect.TypeFor[Widget]())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// clock is a settable time source for managedFields entries.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func (c *clock) step() { c.now = c.now.Add(time.Second) }

func newClock() *clock { return &clock{now: time.Date(2024, 5, 6, 7, 8, 9, 500, time.UTC)} }

func widgetPatcher(t testing.TB, c *clock) *patch.Patcher {
	t.Helper()
	p, err := patch.New(patch.Config{
		Schema: widgetSchema(t), Group: "stable.example.com", Version: "v1", Kind: "Widget",
		ResetFields: map[string][]string{"": {"status"}, "status": {"spec"}},
		Now:         c.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// js compacts a JSON literal written for readability.
func js(t testing.TB, s string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON in test: %v\n%s", err, s)
	}
	b, _ := json.Marshal(v)
	return b
}

// jsonEqual compares JSON documents semantically.
func jsonEqual(t testing.TB, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("result is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad JSON in test: %v", err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s (-want +got):\n%s", got, diff)
	}
}

// statusOf returns the Status an error carries; it fails the test when
// there is none.
func statusOf(t testing.TB, err error) meta.Status {
	t.Helper()
	var se *status.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) carries no Status", err, err)
	}
	return se.Status
}

// wantStatus checks code, reason and message (a prefix when the wanted
// message ends in "...").
func wantStatus(t testing.TB, err error, code int32, reason meta.StatusReason, msg string) meta.Status {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %d %s %q", code, reason, msg)
	}
	st := statusOf(t, err)
	if st.Code != code || st.Reason != reason {
		t.Errorf("got %d %q (%s), want %d %q", st.Code, st.Reason, st.Message, code, reason)
	}
	if p, ok := strings.CutSuffix(msg, "..."); ok {
		if !strings.HasPrefix(st.Message, p) {
			t.Errorf("message %q, want prefix %q", st.Message, p)
		}
	} else if st.Message != msg {
		t.Errorf("message %q\nwant     %q", st.Message, msg)
	}
	return st
}

// fieldsOf renders entries without times, one per line, for comparisons.
func fieldsOf(entries []meta.ManagedFieldsEntry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Manager + " " + string(e.Operation) + " " + e.APIVersion)
		if e.Subresource != "" {
			b.WriteString(" /" + e.Subresource)
		}
		if e.FieldsV1 != nil {
			b.WriteString(" " + string(e.FieldsV1.Raw))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// widgetDoc is a stored Widget of about 1.9 KB (1,860 bytes).
func widgetDoc() []byte {
	return []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"widget-0001","namespace":"default","uid":"6f1c2a8e-3b0d-4c1e-9a57-2f8d1e4b7c90","resourceVersion":"123456","generation":4,"creationTimestamp":"2024-05-06T07:08:09Z","labels":{"app":"shop","tier":"backend","team":"payments","env":"production"},"annotations":{"example.com/owner":"payments-team@example.com","example.com/description":"A widget that serves the checkout flow of the shop front end.","example.com/runbook":"https://runbooks.example.com/payments/widgets/checkout-frontend-widget-operations.html","example.com/contact":"#payments-oncall","example.com/cost-center":"cc-4711-payments-platform","example.com/last-audit":"2024-04-30"}},"spec":{"replicas":3,"color":"blue","size":"large","tags":["checkout","payments","critical","eu-west-1","tier-1","pci","gold"],"ports":[{"name":"http","port":80,"protocol":"TCP"},{"name":"https","port":443,"protocol":"TCP"},{"name":"metrics","port":9090,"protocol":"TCP"},{"name":"grpc","port":9000,"protocol":"TCP"},{"name":"admin","port":8081,"protocol":"TCP"},{"name":"debug","port":6060,"protocol":"TCP"},{"name":"health","port":8086,"protocol":"TCP"},{"name":"dns","port":53,"protocol":"UDP"}]},"status":{"readyReplicas":3,"observedGeneration":4,"selector":"app=shop,tier=backend","conditions":[{"type":"Ready","status":"True","reason":"AllReplicasReady","message":"All 3 replicas are ready and serving traffic.","lastTransitionTime":"2024-05-06T07:10:00Z"},{"type":"Available","status":"True","reason":"MinimumReplicasAvailable","message":"The widget has the minimum number of replicas available.","lastTransitionTime":"2024-05-06T07:10:00Z"},{"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable","message":"The widget rollout has completed successfully across all zones.","lastTransitionTime":"2024-05-06T07:09:30Z"}]}}`)
}
