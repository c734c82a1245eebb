package prometheus

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Adding to memory that another core wrote last moves its cache line
// between the cores: on two cores, counting a GET in series shared by
// every request cost four times as much in parallel as alone. So the
// series that every request adds to keep one cell per shard, a goroutine
// adds to the cell of the shard its processor holds, and a scrape sums
// the cells.

// maxShards bounds the cells of a series: past it, processors share
// shards (and their lines) rather than each series growing.
const maxShards = 32

// shardPicker hands out shards, one per processor most of the time: a
// sync.Pool keeps each processor's in its own slot.
type shardPicker struct {
	pool sync.Pool
	next atomic.Uint32
	n    int // a power of two
}

func newShardPicker() *shardPicker {
	n := 1
	for n < runtime.GOMAXPROCS(0) && n < maxShards {
		n <<= 1
	}
	return &shardPicker{n: n}
}

// shard is one shard's number, and what its holder remembers between
// requests: taken from the pool, it is the holder's alone until put back.
type shard struct {
	n uint32
	// lastKey and last are the label set of the last request counted in
	// this shard and its series: consecutive requests often have the
	// same, and comparing it costs less than hashing it.
	lastKey requestKey
	last    *requestSeries
	// lastRead and lastReads are the same for consistent reads.
	lastRead  consistentKey
	lastReads *shardedCounter
}

// get returns a shard; give it back with put. A shard the pool dropped
// (it drops them at garbage collections) is replaced by the next number
// in turn, so the numbers stay below n.
func (p *shardPicker) get() *shard {
	if s, ok := p.pool.Get().(*shard); ok {
		return s
	}
	return &shard{n: (p.next.Add(1) - 1) % uint32(p.n)}
}

func (p *shardPicker) put(s *shard) { p.pool.Put(s) }

// counterCell is one shard's part of a counter, alone on its cache lines.
type counterCell struct {
	n atomic.Uint64
	_ [120]byte
}

// shardedCounter is a counter in cells.
type shardedCounter []counterCell

func (c shardedCounter) add(shard uint32) { c[int(shard)&(len(c)-1)].n.Add(1) }

func (c shardedCounter) value() float64 {
	var n uint64
	for i := range c {
		n += c[i].n.Load()
	}
	return float64(n)
}

// observe adds v to a histogram's cell: counts[i] holds the observations
// at most bounds[i], the last count those above every bound. Each
// observation adds to one count; a scrape accumulates them.
func observe(counts []atomic.Uint64, sumBits *atomic.Uint64, bounds []float64, v float64) {
	i := 0
	for i < len(bounds) && v > bounds[i] {
		i++
	}
	counts[i].Add(1)
	for {
		old := sumBits.Load()
		if sumBits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// histogramSum is a histogram's cells added up, in the form of a
// Prometheus constant histogram.
type histogramSum struct {
	count uint64
	sum   float64
	cum   map[float64]uint64 // cumulative counts by upper bound
}

// add adds one cell (see observe).
func (h *histogramSum) add(counts []atomic.Uint64, sumBits *atomic.Uint64, bounds []float64) {
	if h.cum == nil {
		h.cum = make(map[float64]uint64, len(bounds))
	}
	var acc uint64
	for i := range counts {
		acc += counts[i].Load()
		if i < len(bounds) {
			h.cum[bounds[i]] += acc
		}
	}
	h.count += acc
	h.sum += math.Float64frombits(sumBits.Load())
}

// maxSnapshotSeries bounds the series looked up without a lock. Labels
// come from request paths, so clients can make any number: past the
// bound, series are looked up under a mutex, and copying the lock-free
// map on each new series stays bounded.
const maxSnapshotSeries = 1024

// seriesMap finds the series of a label set: lock-free for the first
// maxSnapshotSeries label sets (a map replaced whole, copied, when one is
// added), under a mutex for the others.
type seriesMap[K comparable, V any] struct {
	snapshot atomic.Pointer[map[K]*V]
	mu       sync.Mutex
	overflow map[K]*V
	make     func(k K, sharded bool) *V
}

// get returns the series of k, made on first use.
func (m *seriesMap[K, V]) get(k K) *V {
	if p := m.snapshot.Load(); p != nil {
		if v, ok := (*p)[k]; ok {
			return v
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var cur map[K]*V
	if p := m.snapshot.Load(); p != nil {
		cur = *p
	}
	if v, ok := cur[k]; ok {
		return v
	}
	if v, ok := m.overflow[k]; ok {
		return v
	}
	if len(cur) >= maxSnapshotSeries {
		// Rare label sets: one cell each, no lock-free lookup.
		v := m.make(k, false)
		if m.overflow == nil {
			m.overflow = make(map[K]*V)
		}
		m.overflow[k] = v
		return v
	}
	v := m.make(k, true)
	next := make(map[K]*V, len(cur)+1)
	for ck, cv := range cur {
		next[ck] = cv
	}
	next[k] = v
	m.snapshot.Store(&next)
	return v
}

// each calls f for every series made so far.
func (m *seriesMap[K, V]) each(f func(K, *V)) {
	if p := m.snapshot.Load(); p != nil {
		for k, v := range *p {
			f(k, v)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range m.overflow {
		f(k, v)
	}
}
