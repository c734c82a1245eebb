package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/audit"
)

// TestAdmissionReports: what admission functions report of a write
// reaches the client and the audit record, as webhooks' and policies'
// warnings and audit annotations do in kube-apiserver: each warning once
// as a Warning header, each annotation key with its first value; and
// every function of one write sees the same request ID, the kind's scope
// and its served versions, in which it can convert the object.
func TestAdmissionReports(t *testing.T) {
	log := &auditLog{}
	var ids []string
	var seen []string
	mutate := func(ctx context.Context, a *admission.Request) error {
		ids = append(ids, a.ID())
		admission.Warn(ctx, "mutated \"once\"")
		admission.AuditAnnotation(ctx, "mutator/key", "first")
		if a.Versions == nil || !a.Namespaced {
			t.Errorf("versions %v, namespaced %v", a.Versions, a.Namespaced)
			return nil
		}
		seen = append(seen, a.Versions.Served()...)
		beta, err := a.Versions.Convert(a.Object, "v1beta1")
		if err != nil {
			return err
		}
		seen = append(seen, beta.GetTypeMeta().APIVersion)
		if obj := a.Versions.New("v1beta1"); obj == nil {
			t.Error("New(v1beta1) is nil")
		}
		return nil
	}
	validate := func(ctx context.Context, a *admission.Request) error {
		ids = append(ids, a.ID())
		admission.Warn(ctx, "mutated \"once\"")
		admission.AuditAnnotation(ctx, "mutator/key", "second")
		admission.AuditAnnotation(ctx, "validator/key", "v")
		return nil
	}
	srv := apiserver.New(apiserver.Options{
		Audit:               audit.NewLogger(log, &audit.Policy{Rules: []audit.PolicyRule{{Level: audit.LevelMetadata}}}),
		MutatingAdmission:   []apiserver.AdmissionFunc{mutate},
		ValidatingAdmission: []apiserver.AdmissionFunc{validate},
	})
	srv.Register(twoVersionKind("v1"))
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	r := auditedRequest(t, ts, "POST", v1Path, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w1"}}`, http.StatusCreated)
	if diff := cmp.Diff([]string{`299 - "mutated \"once\""`}, r.header.Values("Warning")); diff != "" {
		t.Errorf("Warning headers (-want +got):\n%s", diff)
	}
	want := map[string]string{"mutator/key": "first", "validator/key": "v"}
	if diff := cmp.Diff(want, log.completed(t, r.id).Annotations); diff != "" {
		t.Errorf("audit annotations (-want +got):\n%s", diff)
	}
	if len(ids) != 2 || ids[0] == "" || ids[0] != ids[1] {
		t.Errorf("request IDs %q: want one, seen by both functions", ids)
	}
	if diff := cmp.Diff([]string{"v1", "v1beta1", "stable.example.com/v1beta1"}, seen); diff != "" {
		t.Errorf("versions (-want +got):\n%s", diff)
	}
}

// TestAdmissionSeesServerFieldsAfterMutation: on a create, mutating
// admission sees the object as the client sent it, without the fields
// the server sets (uid, creation time, generation), and validating
// admission sees them set, as webhooks see them on kube-apiserver.
func TestAdmissionSeesServerFieldsAfterMutation(t *testing.T) {
	type seen struct {
		UID        string
		Created    bool
		Generation int64
	}
	var got []seen
	look := func(_ context.Context, a *admission.Request) error {
		m := a.Object.GetObjectMeta()
		got = append(got, seen{m.UID, !m.CreationTimestamp.IsZero(), m.Generation})
		return nil
	}
	ts := serveKinds(t, apiserver.Options{
		MutatingAdmission:   []apiserver.AdmissionFunc{look},
		ValidatingAdmission: []apiserver.AdmissionFunc{look},
	}, widgetKind())
	r := do(t, ts, "POST", widgetsPath, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w1"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	if len(got) != 2 || got[0] != (seen{}) || got[1].UID == "" || !got[1].Created || got[1].Generation != 1 {
		t.Errorf("mutating then validating admission saw %+v; want nothing set, then uid, creation time and generation 1", got)
	}
}

// TestAdmissionReplacedObjectNotOwned: what a mutating function sets on
// an object it made anew (ReplaceObject, as webhooks and policies do) is
// owned by no field manager, as kube-apiserver records managedFields
// before mutating admission; what one changes in place is recorded as
// the request's.
func TestAdmissionReplacedObjectNotOwned(t *testing.T) {
	for _, tc := range []struct {
		name  string
		owned bool
	}{{"replaced", false}, {"in place", true}} {
		t.Run(tc.name, func(t *testing.T) {
			label := func(_ context.Context, a *admission.Request) error {
				if tc.owned {
					a.Object.GetObjectMeta().Labels = map[string]string{"painted": "yes"}
					return nil
				}
				b, err := json.Marshal(a.Object)
				if err != nil {
					return err
				}
				obj := a.Versions.New(a.Kind.Version)
				if err := json.Unmarshal(b, obj); err != nil {
					return err
				}
				obj.GetObjectMeta().Labels = map[string]string{"painted": "yes"}
				a.ReplaceObject(obj)
				return nil
			}
			ts := serveKinds(t, apiserver.Options{MutatingAdmission: []apiserver.AdmissionFunc{label}}, widgetKind())
			r := do(t, ts, "POST", widgetsPath+"?fieldManager=tester", "application/json",
				`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"}}`)
			if r.code != http.StatusCreated {
				t.Fatalf("create: %d %s", r.code, r.body)
			}
			var got struct {
				Metadata struct {
					Labels        map[string]string `json:"labels"`
					ManagedFields []struct {
						FieldsV1 map[string]any `json:"fieldsV1"`
					} `json:"managedFields"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			if got.Metadata.Labels["painted"] != "yes" || len(got.Metadata.ManagedFields) != 1 {
				t.Fatalf("labels %v, managedFields %v", got.Metadata.Labels, got.Metadata.ManagedFields)
			}
			_, owned := got.Metadata.ManagedFields[0].FieldsV1["f:metadata"]
			if owned != tc.owned {
				t.Errorf("label owned: %v, want %v (fields %v)", owned, tc.owned, got.Metadata.ManagedFields[0].FieldsV1)
			}
		})
	}
}
