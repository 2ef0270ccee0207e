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
// each of 4 live runs hands over its events in groups (SubmitAll) without
// waiting and waits for the commit once every 8 events, as a step does
// before its tool call.
func BenchmarkAppendPipelined(b *testing.B) { benchPipelined(b, 8) }

// BenchmarkAppendPipelinedDeep is the same with 64 events between waits, as
// a run that streams a long answer before its next tool call.
func BenchmarkAppendPipelinedDeep(b *testing.B) { benchPipelined(b, 64) }

func benchPipelined(b *testing.B, syncEvery int) {
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
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := fmt.Sprintf("r%d", i)
			var group []event.Event
			var pending []*store.Pending
			wait := func() bool {
				for _, p := range pending {
					if _, err := p.Wait(); err != nil {
						b.Error(err)
						return false
					}
				}
				pending = pending[:0]
				return true
			}
			for n := i; n < b.N; n += runs {
				group = append(group, event.Event{RunID: run, Type: event.LLMDelta, NodeID: "n3", Data: data})
				if len(group) == 4 { // a step hands over a few events at a time
					pending = append(pending, st.SubmitAll(group))
					group = nil
				}
				if (n/runs+1)%syncEvery == 0 {
					if len(group) > 0 {
						pending = append(pending, st.SubmitAll(group))
						group = nil
					}
					if !wait() {
						return
					}
				}
			}
			if len(group) > 0 {
				pending = append(pending, st.SubmitAll(group))
			}
			wait()
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}
