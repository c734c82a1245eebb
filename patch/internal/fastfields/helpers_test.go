package fastfields_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/patch/internal/fastfields"
	"github.com/kapi-dev/kapi/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// version is the apiVersion the tests' sets are recorded in.
const version = fieldpath.APIVersion("stable.example.com/v1")

// op is the manager the tests' writes are recorded for.
const op = "op"

// kind is one kind's fast walk and, for comparison, the general path:
// structured-merge-diff's Updater, per subresource with the fields the
// subresource resets filtered out, as package patch builds them for a
// kind with a status subresource.
type kind struct {
	fast     fastfields.Fields
	updaters map[string]*merge.Updater
	filters  map[string]fieldpath.Filter
	resets   map[string]*fastfields.Names
}

// strip are the fields package patch never records.
var strip = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

func stripNames(t testing.TB) *fastfields.Names {
	n, ok := fastfields.NamesOf(strip)
	if !ok {
		t.Fatal("strip holds more than field names")
	}
	return n
}

func newKind(t testing.TB, s *schema.Schema) *kind {
	t.Helper()
	pt, err := patch.SMDSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	k := &kind{fast: fastfields.Fields{Type: pt, Version: version},
		updaters: map[string]*merge.Updater{}, filters: map[string]fieldpath.Filter{}, resets: map[string]*fastfields.Names{}}
	for sub, reset := range map[string]string{"": "status", "status": "spec"} {
		set := fieldpath.NewSet(fieldpath.MakePathOrDie(reset))
		f := fieldpath.NewExcludeSetFilter(set)
		names, ok := fastfields.NamesOf(set)
		if !ok {
			t.Fatal("reset fields hold more than field names")
		}
		k.resets[sub] = names
		k.filters[sub] = f
		k.updaters[sub] = (&merge.UpdaterBuilder{Converter: sameVersion{},
			IgnoreFilter: map[fieldpath.APIVersion]fieldpath.Filter{version: f}}).BuildUpdater()
	}
	return k
}

// sameVersion is the Updater's converter for a kind served in one version,
// as package patch's: entries of other versions cannot be converted, and
// the Updater drops them.
type sameVersion struct{}

var errMissingVersion = errors.New("no conversion to that version")

func (sameVersion) Convert(v *typed.TypedValue, to fieldpath.APIVersion) (*typed.TypedValue, error) {
	if to != version {
		return nil, errMissingVersion
	}
	return v, nil
}

func (sameVersion) IsMissingVersionError(err error) bool { return errors.Is(err, errMissingVersion) }

// general records an update of live to obj by op through the Updater.
func (k *kind) general(live, obj map[string]any, managers fieldpath.ManagedFields, sub string) (fieldpath.ManagedFields, error) {
	lt, err := k.fast.Type.FromUnstructured(live, typed.AllowDuplicates)
	if err != nil {
		return nil, err
	}
	nt, err := k.fast.Type.FromUnstructured(obj, typed.AllowDuplicates)
	if err != nil {
		return nil, err
	}
	_, out, err := k.updaters[sub].Update(lt, nt, version, managers, op)
	return out, err
}

// decode parses doc as package patch does before recording a write, its
// managedFields removed.
func decode(t testing.TB, doc []byte) map[string]any {
	t.Helper()
	obj, err := patch.DecodeObject(doc)
	if err != nil || obj == nil {
		t.Fatalf("decoding %s: %v", doc, err)
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	return obj
}

// copyManagers copies the map (sets are not changed in place).
func copyManagers(m fieldpath.ManagedFields) fieldpath.ManagedFields {
	out := make(fieldpath.ManagedFields, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// render lists managers and their sets, for failure messages.
func render(m fieldpath.ManagedFields) string {
	var b strings.Builder
	for id, vs := range m {
		js, _ := vs.Set().ToJSON()
		b.WriteString(id + " " + string(vs.APIVersion()) + " " + string(js) + "\n")
	}
	return b.String()
}

// entry is a manager's set for tests: fields as FieldsV1 JSON.
type entry struct {
	manager, apiVersion, fields string
	applied                     bool
}

func managersOf(t testing.TB, es []entry) fieldpath.ManagedFields {
	t.Helper()
	out := fieldpath.ManagedFields{}
	for _, e := range es {
		set := &fieldpath.Set{}
		if err := set.FromJSON(strings.NewReader(e.fields)); err != nil {
			t.Fatal(err)
		}
		out[e.manager] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(e.apiVersion), e.applied)
	}
	return out
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

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

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

// widgetDoc is a stored Widget of about 1.9 KB (1,860 bytes).
func widgetDoc() []byte {
	return []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"widget-0001","namespace":"default","uid":"6f1c2a8e-3b0d-4c1e-9a57-2f8d1e4b7c90","resourceVersion":"123456","generation":4,"creationTimestamp":"2024-05-06T07:08:09Z","labels":{"app":"shop","tier":"backend","team":"payments","env":"production"},"annotations":{"example.com/owner":"payments-team@example.com","example.com/description":"A widget that serves the checkout flow of the shop front end.","example.com/runbook":"https://runbooks.example.com/payments/widgets/checkout-frontend-widget-operations.html","example.com/contact":"#payments-oncall","example.com/cost-center":"cc-4711-payments-platform","example.com/last-audit":"2024-04-30"}},"spec":{"replicas":3,"color":"blue","size":"large","tags":["checkout","payments","critical","eu-west-1","tier-1","pci","gold"],"ports":[{"name":"http","port":80,"protocol":"TCP"},{"name":"https","port":443,"protocol":"TCP"},{"name":"metrics","port":9090,"protocol":"TCP"},{"name":"grpc","port":9000,"protocol":"TCP"},{"name":"admin","port":8081,"protocol":"TCP"},{"name":"debug","port":6060,"protocol":"TCP"},{"name":"health","port":8086,"protocol":"TCP"},{"name":"dns","port":53,"protocol":"UDP"}]},"status":{"readyReplicas":3,"observedGeneration":4,"selector":"app=shop,tier=backend","conditions":[{"type":"Ready","status":"True","reason":"AllReplicasReady","message":"All 3 replicas are ready and serving traffic.","lastTransitionTime":"2024-05-06T07:10:00Z"},{"type":"Available","status":"True","reason":"MinimumReplicasAvailable","message":"The widget has the minimum number of replicas available.","lastTransitionTime":"2024-05-06T07:10:00Z"},{"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable","message":"The widget rollout has completed successfully across all zones.","lastTransitionTime":"2024-05-06T07:09:30Z"}]}}`)
}
