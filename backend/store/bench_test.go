package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/store"
)

// BenchmarkAppendGroupCommit measures event appends per second with group
// commit: 128 writers append to 4 live runs, each append waiting for its own
// commit. make bench reports the events/s metric.
func BenchmarkAppendGroupCommit(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), &store.Options{Publisher: event.NewBus()})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const runs = 4
	for i := range runs {
		if _, err := st.Append(context.Background(), created(fmt.Sprintf("r%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	data := event.New("", event.LLMDelta, "n3", event.LLMDeltaData{Text: "a token or two of streamed model text"}).Data
	var next atomic.Int64
	b.SetParallelism(64) // 64 × GOMAXPROCS writers
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			run := fmt.Sprintf("r%d", next.Add(1)%runs)
			if _, err := st.Append(context.Background(), event.Event{RunID: run, Type: event.LLMDelta, NodeID: "n3", Data: data}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkAppendPipelined measures appends the way the engine makes them:
// each of 4 live runs submits its events without waiting and waits for the
// commit once every 8 events (before a side effect).
func BenchmarkAppendPipelined(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), &store.Options{Publisher: event.NewBus()})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const runs, syncEvery = 4, 8
	for i := range runs {
		if _, err := st.Append(context.Background(), created(fmt.Sprintf("r%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	data := event.New("", event.LLMDelta, "n3", event.LLMDeltaData{Text: "a token or two of streamed model text"}).Data
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := fmt.Sprintf("r%d", i)
			var pending []*store.Pending
			for n := i; n < b.N; n += runs {
				pending = append(pending, st.Submit(event.Event{RunID: run, Type: event.LLMDelta, NodeID: "n3", Data: data}))
				if len(pending) == syncEvery {
					for _, p := range pending {
						if _, err := p.Wait(); err != nil {
							b.Error(err)
							return
						}
					}
					pending = pending[:0]
				}
			}
			for _, p := range pending {
				if _, err := p.Wait(); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}
