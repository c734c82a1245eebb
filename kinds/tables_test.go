package kinds_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth/rbac"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
	"github.com/kapi-dev/kapi/kinds/coordinationv1"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/kinds/eventsv1"
)

// column is a Table's column definition as the wire has it.
type column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

type table struct {
	Kind              string   `json:"kind"`
	APIVersion        string   `json:"apiVersion"`
	ColumnDefinitions []column `json:"columnDefinitions"`
	Rows              []struct {
		Cells  []any           `json:"cells"`
		Object json.RawMessage `json:"object"`
	} `json:"rows"`
}

// The descriptions kube-apiserver gives the columns, word for word.
const (
	nameDoc    = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	createdDoc = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	fieldPath  = `If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.`
)

var (
	nameColumn    = column{Name: "Name", Type: "string", Format: "name", Description: nameDoc}
	ageColumn     = column{Name: "Age", Type: "string", Description: createdDoc}
	createdColumn = column{Name: "Created At", Type: "date", Description: createdDoc}
	eventColumns  = []column{
		{Name: "Last Seen", Type: "string", Description: "The time at which the most recent occurrence of this event was recorded."},
		{Name: "Type", Type: "string", Description: "Type of this event (Normal, Warning), new types could be added in the future"},
		{Name: "Reason", Type: "string", Description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."},
		{Name: "Object", Type: "string", Description: "The object that this event is about."},
		{Name: "Subobject", Type: "string", Description: fieldPath, Priority: 1},
		{Name: "Source", Type: "string", Description: "The component reporting this event. Should be a short machine understandable string.", Priority: 1},
		{Name: "Message", Type: "string", Description: "A human-readable description of the status of this operation."},
		{Name: "First Seen", Type: "string", Description: "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", Priority: 1},
		{Name: "Count", Type: "string", Description: "The number of times this event has occurred.", Priority: 1},
		{Name: "Name", Type: "string", Format: "name", Description: nameDoc, Priority: 1},
	}
	bindingColumns = func(noun, roleDoc string) []column {
		return []column{nameColumn,
			{Name: "Role", Type: "string", Description: roleDoc}, ageColumn,
			{Name: "Users", Type: "string", Description: "Users in the " + noun, Priority: 1},
			{Name: "Groups", Type: "string", Description: "Groups in the " + noun, Priority: 1},
			{Name: "ServiceAccounts", Type: "string", Description: "ServiceAccounts in the " + noun, Priority: 1},
		}
	}
)

// fresh stands for the age of an object created during the test, and
// for its creation time where a Table shows the timestamp.
const fresh = "<fresh>"

// TestBuiltinTables compares the Tables of the built-in kinds with
// kube-apiserver's (v1.37): the columns with their types, formats,
// descriptions and priorities (-o wide shows priority 1), and the cells
// of each row, taken from the reference server for the same objects.
func TestBuiltinTables(t *testing.T) {
	ts := builtinServer(t)
	// Ages of ten minutes and more are shown in whole minutes (or
	// coarser): they stay the same while the test runs.
	now := time.Now().UTC()
	ago := func(d time.Duration) string { return now.Add(-d).Format(time.RFC3339) }
	agoMicro := func(d time.Duration) string { return now.Add(-d).Format("2006-01-02T15:04:05.000000Z07:00") }
	for _, obj := range []struct{ path, body string }{
		{"/api/v1/namespaces", `{"metadata":{"name":"tables-ns"}}`},
		{"/api/v1/namespaces/tables-ns/configmaps", `{"metadata":{"name":"tables-cm"},"data":{"a":"b"},"binaryData":{"c":"ZA=="}}`},
		{"/api/v1/namespaces/tables-ns/configmaps", `{"metadata":{"name":"tables-empty"}}`},
		{"/api/v1/namespaces/tables-ns/secrets", `{"metadata":{"name":"tables-secret"},"data":{"a":"Yg=="},"stringData":{"c":"d"}}`},
		{"/api/v1/namespaces/tables-ns/secrets", `{"metadata":{"name":"tables-tls"},"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}}`},
		{"/api/v1/namespaces/tables-ns/serviceaccounts", `{"metadata":{"name":"tables-sa"},"secrets":[{"name":"s1"}]}`},
		{"/apis/coordination.k8s.io/v1/namespaces/tables-ns/leases", `{"metadata":{"name":"tables-held"},"spec":{"holderIdentity":"node-1","leaseDurationSeconds":15}}`},
		{"/apis/coordination.k8s.io/v1/namespaces/tables-ns/leases", `{"metadata":{"name":"tables-free"}}`},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/tables-ns/roles", `{"metadata":{"name":"tables-role"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"metadata":{"name":"tables-clusterrole"}}`},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/tables-ns/rolebindings", `{"metadata":{"name":"tables-rb"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"tables-role"},
			"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"alice"},
				{"kind":"ServiceAccount","name":"robot","namespace":"tables-ns"},
				{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"devs"},
				{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"bob"}]}`},
		{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", `{"metadata":{"name":"tables-crb"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"tables-clusterrole"}}`},
		{"/api/v1/namespaces/tables-ns/events", `{"metadata":{"name":"tables-legacy"},
			"involvedObject":{"kind":"ConfigMap","namespace":"tables-ns","name":"tables-cm","fieldPath":"data[a]"},
			"reason":"Changed","message":"  changed twice \n","type":"Normal","count":2,
			"source":{"component":"tables-controller","host":"node-1"},
			"firstTimestamp":"` + ago(3*time.Hour) + `","lastTimestamp":"` + ago(50*time.Hour) + `"}`},
		{"/api/v1/namespaces/tables-ns/events", `{"metadata":{"name":"tables-once"},
			"involvedObject":{"kind":"Namespace","name":"tables-ns","namespace":"tables-ns"},"reason":"Seen","type":"Warning",
			"firstTimestamp":"` + ago(20*time.Minute) + `"}`},
		{"/apis/events.k8s.io/v1/namespaces/tables-ns/events", `{"metadata":{"name":"tables-new"},
			"eventTime":"` + agoMicro(15*time.Minute) + `","reportingController":"example.com/tables","reportingInstance":"tables-1",
			"action":"Scale","reason":"Scaled","note":"to 3","type":"Normal","regarding":{"kind":"Lease","namespace":"tables-ns","name":"tables-held"},
			"series":{"count":4,"lastObservedTime":"` + agoMicro(10*time.Minute) + `"}}`},
		{"/apis/events.k8s.io/v1/namespaces/tables-ns/events", `{"metadata":{"name":"tables-nameless"},
			"eventTime":"` + agoMicro(26*time.Hour) + `","reportingController":"example.com/tables","reportingInstance":"tables-1",
			"action":"Look","reason":"Looked","type":"Normal","regarding":{"kind":"Widget","namespace":"tables-ns"}}`},
	} {
		post(t, ts.URL+obj.path, obj.body)
	}

	events := [][]any{
		{"2d2h", "Normal", "Changed", "configmap/tables-cm", "data[a]", "tables-controller, node-1", "changed twice", "3h", 2.0, "tables-legacy"},
		{"26h", "Normal", "Looked", "widget", "", "example.com/tables, tables-1", "", "26h", 1.0, "tables-nameless"},
		{"10m", "Normal", "Scaled", "lease/tables-held", "", "example.com/tables, tables-1", "to 3", "15m", 4.0, "tables-new"},
		{"20m", "Warning", "Seen", "namespace/tables-ns", "", "", "", "20m", 1.0, "tables-once"},
	}
	for _, c := range []struct {
		name, path string
		columns    []column
		rows       [][]any
	}{
		{"namespace", "/api/v1/namespaces/tables-ns",
			[]column{nameColumn, {Name: "Status", Type: "string", Description: "The status of the namespace"}, ageColumn},
			[][]any{{"tables-ns", "Active", fresh}}},
		{"configmaps", "/api/v1/namespaces/tables-ns/configmaps",
			[]column{nameColumn, {Name: "Data", Type: "string", Description: "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."}, ageColumn},
			[][]any{{"tables-cm", 2.0, fresh}, {"tables-empty", 0.0, fresh}}},
		{"secrets", "/api/v1/namespaces/tables-ns/secrets",
			[]column{nameColumn,
				{Name: "Type", Type: "string", Description: "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"},
				{Name: "Data", Type: "string", Description: "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"},
				ageColumn},
			[][]any{{"tables-secret", "Opaque", 2.0, fresh}, {"tables-tls", "kubernetes.io/tls", 2.0, fresh}}},
		{"serviceaccounts", "/api/v1/namespaces/tables-ns/serviceaccounts",
			[]column{nameColumn, ageColumn},
			[][]any{{"tables-sa", fresh}}},
		{"leases", "/apis/coordination.k8s.io/v1/namespaces/tables-ns/leases",
			[]column{nameColumn, {Name: "Holder", Type: "string", Description: "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field."}, ageColumn},
			[][]any{{"tables-free", "", fresh}, {"tables-held", "node-1", fresh}}},
		{"roles", "/apis/rbac.authorization.k8s.io/v1/namespaces/tables-ns/roles",
			[]column{nameColumn, createdColumn},
			[][]any{{"tables-role", fresh}}},
		{"clusterrole", "/apis/rbac.authorization.k8s.io/v1/clusterroles/tables-clusterrole",
			[]column{nameColumn, createdColumn},
			[][]any{{"tables-clusterrole", fresh}}},
		{"rolebindings", "/apis/rbac.authorization.k8s.io/v1/namespaces/tables-ns/rolebindings",
			bindingColumns("roleBinding", "roleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error."),
			[][]any{{"tables-rb", "Role/tables-role", fresh, "alice, bob", "devs", "tables-ns/robot"}}},
		{"clusterrolebinding", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/tables-crb",
			bindingColumns("clusterRoleBinding", "roleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error."),
			[][]any{{"tables-crb", "ClusterRole/tables-clusterrole", fresh, "", "", ""}}},
		{"core events", "/api/v1/namespaces/tables-ns/events", eventColumns, events},
		{"events.k8s.io events", "/apis/events.k8s.io/v1/namespaces/tables-ns/events", eventColumns, events},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := getTable(t, ts.URL+c.path, "")
			if d := cmp.Diff(c.columns, tb.ColumnDefinitions); d != "" {
				t.Errorf("columns (-want +got):\n%s", d)
			}
			var rows [][]any
			for _, r := range tb.Rows {
				rows = append(rows, freshCells(r.Cells, now))
			}
			if d := cmp.Diff(c.rows, rows); d != "" {
				t.Errorf("rows (-want +got):\n%s", d)
			}
		})
	}
}

// TestCRDTable: the Table of CustomResourceDefinitions has kube's
// columns: Scope, the served versions, the creation time as a timestamp,
// and for -o wide the group, kind, short names and whether it is
// established.
func TestCRDTable(t *testing.T) {
	ts := builtinServer(t)
	post(t, ts.URL+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"metadata":{"name":"things.tables.example.com"},
		"spec":{"group":"tables.example.com","scope":"Namespaced","names":{"plural":"things","kind":"Thing","shortNames":["th","thg"]},
		"versions":[{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}},
			{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}},
			{"name":"v0","served":false,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`)
	tb := getTable(t, ts.URL+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.tables.example.com", "")
	want := []column{nameColumn,
		{Name: "Scope", Type: "string", Description: "Cluster/Namespaced"},
		{Name: "Versions", Type: "string", Description: "Served versions"},
		createdColumn,
		{Name: "Group", Type: "string", Description: "API group", Priority: 1},
		{Name: "Kind", Type: "string", Description: "CustomResource kind", Priority: 1},
		{Name: "ShortNames", Type: "string", Description: "Short names", Priority: 1},
		{Name: "Established", Type: "boolean", Description: "Established status", Priority: 1},
	}
	if d := cmp.Diff(want, tb.ColumnDefinitions); d != "" {
		t.Errorf("columns (-want +got):\n%s", d)
	}
	// Established is set by the controller that serves the kind, which
	// this server does not run.
	cells := []any{"things.tables.example.com", "Namespaced", "v1,v2(storage)", fresh, "tables.example.com", "Thing", "th,thg", false}
	if len(tb.Rows) != 1 {
		t.Fatalf("%d rows", len(tb.Rows))
	}
	if d := cmp.Diff(cells, freshCells(tb.Rows[0].Cells, time.Now())); d != "" {
		t.Errorf("cells (-want +got):\n%s", d)
	}
}

// TestBuiltinTableObjects: each row carries the object as includeObject
// asks: its metadata by default (a PartialObjectMetadata), the whole
// object, or null.
func TestBuiltinTableObjects(t *testing.T) {
	ts := builtinServer(t)
	post(t, ts.URL+"/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"tables-cm"},"data":{"a":"b"}}`)
	path := ts.URL + "/api/v1/namespaces/default/configmaps/tables-cm"
	for _, c := range []struct {
		include, kind, apiVersion string
		data                      bool
	}{
		{"", "PartialObjectMetadata", "meta.k8s.io/v1", false},
		{"Metadata", "PartialObjectMetadata", "meta.k8s.io/v1", false},
		{"Object", "ConfigMap", "v1", true},
		{"None", "", "", false},
	} {
		t.Run("includeObject="+c.include, func(t *testing.T) {
			tb := getTable(t, path, c.include)
			if len(tb.Rows) != 1 {
				t.Fatalf("%d rows", len(tb.Rows))
			}
			raw := tb.Rows[0].Object
			if c.kind == "" {
				if string(raw) != "null" {
					t.Errorf("object %s, want null, as kube-apiserver sends it", raw)
				}
				return
			}
			var obj struct {
				Kind       string         `json:"kind"`
				APIVersion string         `json:"apiVersion"`
				Metadata   map[string]any `json:"metadata"`
				Data       map[string]any `json:"data"`
			}
			if err := json.Unmarshal(raw, &obj); err != nil {
				t.Fatal(err)
			}
			if obj.Kind != c.kind || obj.APIVersion != c.apiVersion || obj.Metadata["name"] != "tables-cm" || (obj.Data != nil) != c.data {
				t.Errorf("object %s, want a %s %s", raw, c.apiVersion, c.kind)
			}
		})
	}
}

// builtinServer serves every built-in kind.
func builtinServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := apiserver.New(apiserver.Options{})
	for _, k := range corev1.Kinds() {
		s.Register(k)
	}
	s.Register(eventsv1.EventKind()).Register(coordinationv1.LeaseKind())
	s.Register(rbac.RoleKind()).Register(rbac.ClusterRoleKind()).Register(rbac.RoleBindingKind()).Register(rbac.ClusterRoleBindingKind())
	apiextensionsv1.Register(s)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

func post(t *testing.T, url, body string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, b)
	}
}

// getTable gets a Table as kubectl asks for one.
func getTable(t *testing.T, url, includeObject string) table {
	t.Helper()
	if includeObject != "" {
		url += "?includeObject=" + includeObject
	}
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var tb table
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &tb) != nil || tb.Kind != "Table" || tb.APIVersion != "meta.k8s.io/v1" {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, bytes.TrimSpace(b))
	}
	return tb
}

var shortAge = regexp.MustCompile(`^[0-9]s$`)

// freshCells replaces the ages and creation times of objects created
// during the test by fresh.
func freshCells(cells []any, now time.Time) []any {
	out := make([]any, len(cells))
	for i, c := range cells {
		out[i] = c
		s, ok := c.(string)
		if !ok {
			continue
		}
		if shortAge.MatchString(s) {
			out[i] = fresh
		} else if at, err := time.Parse(time.RFC3339, s); err == nil && now.Sub(at).Abs() < time.Minute {
			out[i] = fresh
		}
	}
	return out
}
