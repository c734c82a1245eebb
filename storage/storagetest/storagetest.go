// Package storagetest is a conformance suite for [storage.Interface]
// implementations. A backend's tests call [Run] (or [RunOptions]) with a
// constructor of fresh stores; the suite checks only the interface's
// contract, so every backend must pass it unchanged.
//
// The suite assumes each store it gets is empty of keys and that nothing
// else writes to it while a subtest runs. It assumes nothing about the
// absolute value of revisions, only that every successful write advances
// the store's revision and a failed compare-and-swap does not.
package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage"
)

// Options holds backend-specific knobs of the suite.
type Options struct {
	// ProgressNotifyInterval is how often the stores newStore returns send
	// progress notifications to idle watches. Zero skips the progress
	// notification test.
	ProgressNotifyInterval time.Duration
	// Timeout bounds every wait for a watch response. Zero means 10s.
	Timeout time.Duration
}

// Run runs the suite with default options (no progress notification test).
func Run(t *testing.T, newStore func(t *testing.T) storage.Interface) {
	RunOptions(t, newStore, Options{})
}

// RunOptions runs the suite, each subtest on a store from newStore.
func RunOptions(t *testing.T, newStore func(t *testing.T) storage.Interface, opts Options) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	tests := []struct {
		name string
		fn   func(h *harness)
	}{
		{"Create", testCreate},
		{"CreateExisting", testCreateExisting},
		{"Update", testUpdate},
		{"UpdateMissing", testUpdateMissing},
		{"Delete", testDelete},
		{"DeleteMissing", testDeleteMissing},
		{"GetMissing", testGetMissing},
		{"ValueCopied", testValueCopied},
		{"RevisionAdvances", testRevisionAdvances},
		{"ListOrderAndPrefix", testListOrderAndPrefix},
		{"ListPagination", testListPagination},
		{"GetAtRevision", testGetAtRevision},
		{"ListAtRevision", testListAtRevision},
		{"RandomHistory", testRandomHistory},
		{"Compaction", testCompaction},
		{"FutureRevision", testFutureRevision},
		{"WatchFromNow", testWatchFromNow},
		{"WatchFromRevision", testWatchFromRevision},
		{"WatchPrefixIsolation", testWatchPrefixIsolation},
		{"WatchCancel", testWatchCancel},
		{"WatchCompacted", testWatchCompacted},
		{"WatchProgressNotify", testWatchProgress},
		{"ConcurrentCASRounds", testConcurrentCASRounds},
		{"ConcurrentIncrements", testConcurrentIncrements},
		{"SharedParts", testSharedParts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			tc.fn(&harness{T: t, s: newStore(t), ctx: ctx, opts: opts})
		})
	}
}

// harness wraps one store with helpers that fail the test on errors.
type harness struct {
	*testing.T
	s    storage.Interface
	ctx  context.Context
	opts Options
}

func (h *harness) put(key, value string, expected int64) storage.PutResponse {
	h.Helper()
	resp, err := h.s.OptimisticPut(h.ctx, key, []byte(value), expected, storage.PutOptions{})
	if err != nil {
		h.Fatalf("OptimisticPut(%q, %d): %v", key, expected, err)
	}
	return resp
}

// create writes a new key and returns its KeyValue.
func (h *harness) create(key, value string) *storage.KeyValue {
	h.Helper()
	return h.mustPut(key, value, 0)
}

// mustPut writes key and fails unless the comparison succeeds.
func (h *harness) mustPut(key, value string, expected int64) *storage.KeyValue {
	h.Helper()
	resp := h.put(key, value, expected)
	if !resp.Succeeded || resp.KV == nil {
		h.Fatalf("OptimisticPut(%q, %d) failed: %+v", key, expected, resp)
	}
	return resp.KV
}

func (h *harness) del(key string, expected int64) storage.DeleteResponse {
	h.Helper()
	resp, err := h.s.OptimisticDelete(h.ctx, key, expected, storage.DeleteOptions{})
	if err != nil {
		h.Fatalf("OptimisticDelete(%q, %d): %v", key, expected, err)
	}
	return resp
}

// mustDelete deletes key and returns the revision of the delete.
func (h *harness) mustDelete(key string, expected int64) int64 {
	h.Helper()
	resp := h.del(key, expected)
	if !resp.Succeeded {
		h.Fatalf("OptimisticDelete(%q, %d) failed: %+v", key, expected, resp)
	}
	return resp.Revision
}

func (h *harness) get(key string, rev int64) storage.GetResponse {
	h.Helper()
	resp, err := h.s.Get(h.ctx, key, storage.GetOptions{Revision: rev})
	if err != nil {
		h.Fatalf("Get(%q, rev %d): %v", key, rev, err)
	}
	return resp
}

func (h *harness) list(prefix string, opts storage.ListOptions) storage.ListResponse {
	h.Helper()
	resp, err := h.s.List(h.ctx, prefix, opts)
	if err != nil {
		h.Fatalf("List(%q, %+v): %v", prefix, opts, err)
	}
	return resp
}

func (h *harness) revision() int64 {
	h.Helper()
	rev, err := h.s.Revision(h.ctx)
	if err != nil {
		h.Fatalf("Revision: %v", err)
	}
	return rev
}

// wantKV fails unless got equals want (both may be nil).
func (h *harness) wantKV(what string, got, want *storage.KeyValue) {
	h.Helper()
	if !sameKV(got, want) {
		h.Fatalf("%s: got %s, want %s", what, fmtKV(got), fmtKV(want))
	}
}

// wantErr fails unless err is a *storage.Error with code, and returns it.
func (h *harness) wantErr(what string, err error, code storage.ErrorCode) *storage.Error {
	h.Helper()
	var se *storage.Error
	if !errors.As(err, &se) || se.Code != code {
		h.Fatalf("%s: got error %v, want a *storage.Error with code %d", what, err, code)
	}
	return se
}

func sameKV(a, b *storage.KeyValue) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Key == b.Key && bytes.Equal(a.Value, b.Value) &&
		a.CreateRevision == b.CreateRevision && a.ModRevision == b.ModRevision
}

func fmtKV(kv *storage.KeyValue) string {
	if kv == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{%q=%q create=%d mod=%d}", kv.Key, kv.Value, kv.CreateRevision, kv.ModRevision)
}

func keysOf(kvs []*storage.KeyValue) []string {
	keys := make([]string, len(kvs))
	for i, kv := range kvs {
		keys[i] = kv.Key
	}
	return keys
}

func testCreate(h *harness) {
	before := h.revision()
	resp := h.put("/w/a", "one", 0)
	if !resp.Succeeded {
		h.Fatalf("create failed: %+v", resp)
	}
	if resp.Revision <= before {
		h.Fatalf("create revision %d, want > %d", resp.Revision, before)
	}
	want := &storage.KeyValue{Key: "/w/a", Value: []byte("one"), CreateRevision: resp.Revision, ModRevision: resp.Revision}
	h.wantKV("create response", resp.KV, want)
	if got := h.revision(); got != resp.Revision {
		h.Fatalf("Revision() = %d after a write at %d", got, resp.Revision)
	}
	g := h.get("/w/a", 0)
	h.wantKV("Get after create", g.KV, want)
	if g.Revision != resp.Revision {
		h.Fatalf("Get revision %d, want %d", g.Revision, resp.Revision)
	}
}

func testCreateExisting(h *harness) {
	kv := h.create("/w/a", "one")
	resp := h.put("/w/a", "two", 0)
	if resp.Succeeded {
		h.Fatalf("create of an existing key succeeded: %+v", resp)
	}
	h.wantKV("failed create returns the current value", resp.KV, kv)
	if resp.Revision != kv.ModRevision {
		h.Fatalf("failed create revision %d, want the current %d", resp.Revision, kv.ModRevision)
	}
	if got := h.revision(); got != kv.ModRevision {
		h.Fatalf("a failed create advanced the revision to %d", got)
	}
	h.wantKV("Get after failed create", h.get("/w/a", 0).KV, kv)
}

func testUpdate(h *harness) {
	v1 := h.create("/w/a", "one")
	h.create("/w/b", "other")
	v2 := h.mustPut("/w/a", "two", v1.ModRevision)
	want := &storage.KeyValue{Key: "/w/a", Value: []byte("two"), CreateRevision: v1.CreateRevision, ModRevision: v2.ModRevision}
	h.wantKV("update response", v2, want)
	if v2.ModRevision <= v1.ModRevision {
		h.Fatalf("update revision %d not after %d", v2.ModRevision, v1.ModRevision)
	}
	for _, stale := range []int64{v1.ModRevision, v2.ModRevision + 1, 0} {
		resp := h.put("/w/a", "three", stale)
		if resp.Succeeded {
			h.Fatalf("update with expected revision %d (current %d) succeeded", stale, v2.ModRevision)
		}
		h.wantKV(fmt.Sprintf("failed update at %d", stale), resp.KV, v2)
	}
	h.wantKV("Get after failed updates", h.get("/w/a", 0).KV, v2)
}

func testUpdateMissing(h *harness) {
	kv := h.create("/w/other", "x")
	resp := h.put("/w/a", "one", kv.ModRevision)
	if resp.Succeeded || resp.KV != nil {
		h.Fatalf("update of a missing key: got %+v, want Succeeded false and KV nil", resp)
	}
	if g := h.get("/w/a", 0); g.KV != nil {
		h.Fatalf("failed update created the key: %s", fmtKV(g.KV))
	}
}

func testDelete(h *harness) {
	v1 := h.create("/w/a", "one")
	v2 := h.mustPut("/w/a", "two", v1.ModRevision)
	resp := h.del("/w/a", v1.ModRevision)
	if resp.Succeeded {
		h.Fatalf("delete with a stale revision succeeded")
	}
	h.wantKV("failed delete returns the current value", resp.KV, v2)
	resp = h.del("/w/a", v2.ModRevision)
	if !resp.Succeeded {
		h.Fatalf("delete failed: %+v", resp)
	}
	h.wantKV("delete returns the deleted value", resp.KV, v2)
	if resp.Revision <= v2.ModRevision {
		h.Fatalf("delete revision %d not after %d", resp.Revision, v2.ModRevision)
	}
	if got := h.revision(); got != resp.Revision {
		h.Fatalf("Revision() = %d after a delete at %d", got, resp.Revision)
	}
	if g := h.get("/w/a", 0); g.KV != nil {
		h.Fatalf("Get after delete: %s", fmtKV(g.KV))
	}
	v3 := h.create("/w/a", "three")
	if v3.CreateRevision != v3.ModRevision || v3.CreateRevision <= resp.Revision {
		h.Fatalf("re-created key: %s", fmtKV(v3))
	}
}

func testDeleteMissing(h *harness) {
	kv := h.create("/w/other", "x")
	for _, expected := range []int64{kv.ModRevision, 0} {
		resp := h.del("/w/a", expected)
		if resp.Succeeded || resp.KV != nil {
			h.Fatalf("delete of a missing key at %d: got %+v, want Succeeded false and KV nil", expected, resp)
		}
	}
	if got := h.revision(); got != kv.ModRevision {
		h.Fatalf("failed deletes advanced the revision to %d", got)
	}
}

func testGetMissing(h *harness) {
	h.create("/w/b", "x")
	rev := h.revision()
	for _, key := range []string{"/w/a", "/w/", "/w/bb", "/w"} {
		g := h.get(key, 0)
		if g.KV != nil || g.Revision != rev {
			h.Fatalf("Get(%q) = %s at %d, want nil at %d", key, fmtKV(g.KV), g.Revision, rev)
		}
	}
}

func testValueCopied(h *harness) {
	buf := []byte("original")
	resp, err := h.s.OptimisticPut(h.ctx, "/w/a", buf, 0, storage.PutOptions{})
	if err != nil || !resp.Succeeded {
		h.Fatalf("create: %+v, %v", resp, err)
	}
	copy(buf, "CHANGED!")
	if got := string(h.get("/w/a", 0).KV.Value); got != "original" {
		h.Fatalf("the store kept the caller's slice: value now %q", got)
	}
}

func testRevisionAdvances(h *harness) {
	last := h.revision()
	kv := h.create("/w/a", "0")
	for i := 1; i <= 5; i++ {
		if kv.ModRevision <= last {
			h.Fatalf("write %d at revision %d, not after %d", i, kv.ModRevision, last)
		}
		last = kv.ModRevision
		kv = h.mustPut("/w/a", fmt.Sprint(i), kv.ModRevision)
	}
	if got := h.revision(); got != kv.ModRevision {
		h.Fatalf("Revision() = %d, want %d", got, kv.ModRevision)
	}
}
