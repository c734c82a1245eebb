package storagetest

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/kapi-dev/kapi/storage"
)

func testCompaction(h *harness) {
	kv := h.create("/w/a", "0")
	revs := []int64{kv.ModRevision}
	for i := 1; i <= 4; i++ {
		kv = h.mustPut("/w/a", fmt.Sprint(i), kv.ModRevision)
		revs = append(revs, kv.ModRevision)
	}
	mid := revs[2]
	if err := h.s.Compact(h.ctx, mid); err != nil {
		h.Fatalf("Compact(%d): %v", mid, err)
	}
	for _, rev := range []int64{revs[0], revs[1], mid} {
		_, err := h.s.Get(h.ctx, "/w/a", storage.GetOptions{Revision: rev})
		se := h.wantErr(fmt.Sprintf("Get at compacted %d", rev), err, storage.ErrCompacted)
		if se.Revision < mid {
			h.Fatalf("Get at %d: compacted revision %d, want >= %d", rev, se.Revision, mid)
		}
		_, err = h.s.List(h.ctx, "/w/", storage.ListOptions{Revision: rev, Limit: 1})
		h.wantErr(fmt.Sprintf("List at compacted %d", rev), err, storage.ErrCompacted)
		if !storage.IsCompacted(err) {
			h.Fatalf("IsCompacted(%v) = false", err)
		}
	}
	g := h.get("/w/a", revs[3])
	if string(g.KV.Value) != "3" {
		h.Fatalf("Get after the compacted revision: %s", fmtKV(g.KV))
	}
	l := h.list("/w/", storage.ListOptions{Revision: revs[3]})
	if len(l.KVs) != 1 || string(l.KVs[0].Value) != "3" {
		h.Fatalf("List after the compacted revision: %q", keysOf(l.KVs))
	}
	h.wantKV("current Get", h.get("/w/a", 0).KV, kv)
}

func testFutureRevision(h *harness) {
	kv := h.create("/w/a", "0")
	cur := h.revision()
	_, err := h.s.Get(h.ctx, "/w/a", storage.GetOptions{Revision: cur + 1})
	se := h.wantErr("Get at a future revision", err, storage.ErrFutureRevision)
	if se.Revision != cur {
		h.Fatalf("future revision error carries %d, want the current %d", se.Revision, cur)
	}
	_, err = h.s.List(h.ctx, "/w/", storage.ListOptions{Revision: cur + 100})
	h.wantErr("List at a future revision", err, storage.ErrFutureRevision)
	if !storage.IsFutureRevision(err) {
		h.Fatalf("IsFutureRevision(%v) = false", err)
	}
	h.wantKV("Get at the current revision", h.get("/w/a", cur).KV, kv)
}

// testConcurrentCASRounds races writers on one expected revision: exactly
// one wins each round.
func testConcurrentCASRounds(h *harness) {
	const workers, rounds = 8, 20
	kv := h.create("/cas/key", "start")
	for round := 0; round < rounds; round++ {
		start := make(chan struct{})
		results := make([]storage.PutResponse, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				value := []byte(fmt.Sprintf("r%d-w%d", round, w))
				results[w], errs[w] = h.s.OptimisticPut(h.ctx, "/cas/key", value, kv.ModRevision, storage.PutOptions{})
			}()
		}
		close(start)
		wg.Wait()
		var winner *storage.KeyValue
		for w := range results {
			if errs[w] != nil {
				h.Fatalf("round %d worker %d: %v", round, w, errs[w])
			}
			if results[w].Succeeded {
				if winner != nil {
					h.Fatalf("round %d: two winners", round)
				}
				winner = results[w].KV
			}
		}
		if winner == nil {
			h.Fatalf("round %d: no winner", round)
		}
		for w, r := range results {
			if !r.Succeeded && !sameKV(r.KV, winner) {
				h.Fatalf("round %d worker %d: failure returned %s, want the winner's %s", round, w, fmtKV(r.KV), fmtKV(winner))
			}
		}
		h.wantKV(fmt.Sprintf("round %d", round), h.get("/cas/key", 0).KV, winner)
		kv = winner
	}
}

// testConcurrentIncrements runs read-modify-write loops from many
// goroutines and checks that no increment is lost.
func testConcurrentIncrements(h *harness) {
	const workers, each = 8, 25
	h.create("/cas/counter", "0")
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- increment(h, "/cas/counter", each)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			h.Fatal(err)
		}
	}
	got := h.get("/cas/counter", 0).KV
	if string(got.Value) != strconv.Itoa(workers*each) {
		h.Fatalf("counter = %s after %d increments", got.Value, workers*each)
	}
}

func increment(h *harness, key string, times int) error {
	g, err := h.s.Get(h.ctx, key, storage.GetOptions{})
	if err != nil {
		return err
	}
	kv := g.KV
	for done := 0; done < times; {
		if kv == nil {
			return fmt.Errorf("%s vanished", key)
		}
		n, err := strconv.Atoi(string(kv.Value))
		if err != nil {
			return err
		}
		resp, err := h.s.OptimisticPut(h.ctx, key, []byte(strconv.Itoa(n+1)), kv.ModRevision, storage.PutOptions{})
		if err != nil {
			return err
		}
		if resp.Succeeded {
			done++
		}
		kv = resp.KV
	}
	return nil
}
