package exchange_test

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/exchange"
)

// TestMemoryComesBack exports and imports a run of 50,000 events five
// times, as a person moving big runs between machines would, and checks
// what issue 18 saw go wrong: the heap must come back to idle afterwards,
// and a cycle must not hold the log several times over while it runs.
//
// The bounds are in terms of the log's size as SQLite stores it (the sum
// of the events' data, 4.8 MiB here). Decoded, a log is about 2.3 times
// that (the event structs and their strings); an import holds it decoded
// once plus the text the store binds, so its live peak is some 4.5 times
// the log, and 6 leaves room. Before issue 18 the peak was 10 times the log
// (the log read whole and cloned, the uncompressed events.jsonl, the parsed
// bundle copied twice for the store) and the store's writer kept the last
// import's events alive until the next append: 7 MiB here, after every
// cycle.
func TestMemoryComesBack(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: five exports and imports of a 50,000-event run, about 10 s (40 s under -race); make test and CI run it")
	}
	e := newBigEnv(t, 5_000)
	ctx := context.Background()
	logBytes := e.logBytes(t)

	// A low GC target makes the sampled heap the live heap (with the
	// default, it is up to twice that in garbage, whatever the code holds).
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	idle := settledHeap()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // samples the heap while the cycles run
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peak.Load() {
					peak.Store(ms.HeapAlloc)
				}
			}
		}
	}()
	const cycles = 5
	for range cycles {
		var buf bytes.Buffer
		if _, err := e.ex.Export(ctx, e.run, exchange.FormatSteward, &buf); err != nil {
			t.Fatal(err)
		}
		r, err := e.ex.Import(ctx, bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		if r.LastSeq != int64(e.events) {
			t.Fatalf("imported %d events of %d", r.LastSeq, e.events)
		}
	}
	close(stop)
	wg.Wait()
	after := settledHeap()
	if p := os.Getenv("STEWARD_HEAP_PROFILE"); p != "" {
		f, _ := os.Create(p)
		pprof.WriteHeapProfile(f)
		f.Close()
	}

	mib := func(n uint64) float64 { return float64(n) / (1 << 20) }
	t.Logf("log %.1f MiB; heap idle %.1f MiB, peak %.1f MiB (+%.1f), after %d cycles %.1f MiB",
		mib(logBytes), mib(idle), mib(peak.Load()), mib(peak.Load()-idle), cycles, mib(after))
	if after > idle+4<<20 {
		t.Errorf("after %d export/import cycles the heap is %.1f MiB, more than idle (%.1f MiB) + 4 MiB: something holds on to bundles",
			cycles, mib(after), mib(idle))
	}
	if grew := peak.Load() - idle; grew > 6*logBytes {
		t.Errorf("the live heap grew by %.1f MiB during the cycles, more than 6 times the log (%.1f MiB): a cycle holds the log several times over",
			mib(grew), mib(logBytes))
	}
}

// settledHeap is the live heap once the garbage is collected and returned.
func settledHeap() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
