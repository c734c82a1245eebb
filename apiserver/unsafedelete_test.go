package apiserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

const forceDelete = "?ignoreStoreReadErrorWithClusterBreakingPotential=true"

// corruptServer serves Widgets from a store holding one readable Widget
// ("good", with a finalizer) and one value that does not decode ("bad"),
// and counts admission calls.
func corruptServer(t *testing.T) (*httptest.Server, storage.Interface, *atomic.Int32) {
	t.Helper()
	store := memory.New(memory.Options{})
	var admitted atomic.Int32
	count := func(context.Context, *apiserver.AdmissionRequest) error { admitted.Add(1); return nil }
	srv := apiserver.New(apiserver.Options{Storage: store,
		MutatingAdmission: []apiserver.AdmissionFunc{count}, ValidatingAdmission: []apiserver.AdmissionFunc{count}})
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	if r := do(t, ts, "POST", widgetsPath, "application/json",
		`{"metadata":{"name":"good","finalizers":["example.com/keep"]}}`); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	bad := []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"bad","namespace":"default","finalizers":["x"]},"spec":{"replicas":"many"}}`)
	if _, err := store.OptimisticPut(context.Background(), badKey, bad, 0, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	admitted.Store(0)
	return ts, store, &admitted
}

const badKey = "/stable.example.com/widgets/default/bad"

func TestUnsafeDeleteOfCorruptObject(t *testing.T) {
	ts, store, admitted := corruptServer(t)

	// The normal deletion fails: the object cannot be read.
	if r := do(t, ts, "DELETE", widgetsPath+"/bad", "", ""); r.code != http.StatusInternalServerError {
		t.Fatalf("plain delete of a corrupt object: %d %s, want 500", r.code, r.body)
	}
	r := do(t, ts, "DELETE", widgetsPath+"/bad"+forceDelete, "", "")
	if r.code != http.StatusOK {
		t.Fatalf("unsafe delete: %d %s", r.code, r.body)
	}
	if st := decodeStatus(t, r); st.Status != meta.StatusSuccess || st.Details == nil || st.Details.Name != "bad" {
		t.Errorf("unsafe delete answered %s, want a success Status naming bad", r.body)
	}
	got, err := store.Get(context.Background(), badKey, storage.GetOptions{})
	if err != nil || got.KV != nil {
		t.Errorf("the corrupt value is still stored (%v): finalizers must not hold an unreadable object", err)
	}
	if n := admitted.Load(); n != 0 {
		t.Errorf("admission ran %d times on an unsafe delete, want none", n)
	}
	if r := do(t, ts, "DELETE", widgetsPath+"/bad"+forceDelete, "", ""); r.code != http.StatusNotFound {
		t.Errorf("unsafe delete of a missing object: %d, want 404", r.code)
	}
}

func TestUnsafeDeleteRefusals(t *testing.T) {
	ts, _, _ := corruptServer(t)
	cases := []struct {
		name, path, body string
		code             int
		causes           []string
	}{
		{"readable object", widgetsPath + "/good" + forceDelete, "", http.StatusUnprocessableEntity,
			[]string{"ignoreStoreReadErrorWithClusterBreakingPotential"}},
		{"with dryRun", widgetsPath + "/bad" + forceDelete + "&dryRun=All", "", http.StatusUnprocessableEntity,
			[]string{"dryRun"}},
		{"with other options in the body", widgetsPath + "/bad",
			`{"ignoreStoreReadErrorWithClusterBreakingPotential":true,"gracePeriodSeconds":0,"propagationPolicy":"Foreground","orphanDependents":false,"preconditions":{"uid":"x"}}`,
			http.StatusUnprocessableEntity, []string{"gracePeriodSeconds", "orphanDependents", "preconditions", "propagationPolicy"}},
		{"not a boolean", widgetsPath + "/bad?ignoreStoreReadErrorWithClusterBreakingPotential=maybe", "", http.StatusBadRequest, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := ""
			if tc.body != "" {
				ct = "application/json"
			}
			r := do(t, ts, "DELETE", tc.path, ct, tc.body)
			if r.code != tc.code {
				t.Fatalf("%d %s, want %d", r.code, r.body, tc.code)
			}
			st := decodeStatus(t, r)
			var fields []string
			if st.Details != nil {
				for _, c := range st.Details.Causes {
					fields = append(fields, c.Field)
				}
			}
			if strings.Join(fields, ",") != strings.Join(tc.causes, ",") {
				t.Errorf("causes %v, want %v (%s)", fields, tc.causes, r.body)
			}
		})
	}
	if r := do(t, ts, "GET", widgetsPath+"/good", "", ""); r.code != http.StatusOK {
		t.Errorf("the readable object is gone: %d", r.code)
	}
}

// The option travels in a protobuf DeleteOptions body as field 6, as
// client-go sends it.
func TestUnsafeDeleteProtobufOptions(t *testing.T) {
	ts, store, _ := corruptServer(t)
	yes := true
	body := pbEncode(t, &meta.DeleteOptions{TypeMeta: meta.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"},
		IgnoreStoreReadErrorWithClusterBreakingPotential: &yes})
	if !hasVarintField(t, body, 6) {
		t.Fatalf("the protobuf DeleteOptions carries no field 6: %x", body)
	}
	r := doMedia(t, ts.URL+widgetsPath+"/bad", "DELETE", "application/json", pb, body)
	if r.code != http.StatusOK {
		t.Fatalf("unsafe delete with protobuf options: %d %s", r.code, r.body)
	}
	if got, _ := store.Get(context.Background(), badKey, storage.GetOptions{}); got.KV != nil {
		t.Error("the corrupt value is still stored")
	}
}

// hasVarintField reports whether the message inside a Kubernetes protobuf
// envelope (magic, Unknown{typeMeta=1, raw=2}) has varint field n set to 1.
func hasVarintField(t *testing.T, b []byte, n protowire.Number) bool {
	t.Helper()
	b = b[4:] // "k8s\x00"
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		b = b[l:]
		if num == 2 && typ == protowire.BytesType {
			raw, l := protowire.ConsumeBytes(b)
			b = b[l:]
			for len(raw) > 0 {
				num, typ, l := protowire.ConsumeTag(raw)
				raw = raw[l:]
				if num == n && typ == protowire.VarintType {
					v, _ := protowire.ConsumeVarint(raw)
					return v == 1
				}
				l = protowire.ConsumeFieldValue(num, typ, raw)
				raw = raw[l:]
			}
			continue
		}
		b = b[protowire.ConsumeFieldValue(num, typ, b):]
	}
	return false
}
