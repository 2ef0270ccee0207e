package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/store"
)

// BenchmarkAppendGroupCommit measures event appends per second with group
// commit: 128 writers append to 4 live runs, each append waiting for its own
// commit. make bench reports the events/s metric, and beside it the raw
// control of the same run (see reportWithControl).
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
	m := measure()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			run := fmt.Sprintf("r%d", next.Add(1)%runs)
			if _, err := st.Append(context.Background(), event.Event{RunID: run, Type: event.LLMDelta, NodeID: "n3", Data: data}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	reportWithControl(b, m)
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
	m := measure()
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
	reportWithControl(b, m)
}

// reportWithControl reports the benchmark's events/s and, measured right
// after it in the same run, the raw control: the same number of the same
// rows inserted into the same table by a bare SQLite loop (rawInserts). A
// shared machine slows both alike, so their ratio (of-raw) is the figure to
// compare across machines; the CPU time per event (of the whole process:
// the writer, the appenders, the collector) is the one a noisy neighbour
// disturbs least.
func reportWithControl(b *testing.B, m mark) {
	b.StopTimer()
	perSec, cpu := m.rates(b.N)
	raw, rawCPU := rawInserts(b, b.N)
	b.ReportMetric(perSec, "events/s")
	b.ReportMetric(raw, "raw-events/s")
	b.ReportMetric(perSec/raw, "of-raw")
	b.ReportMetric(cpu, "cpu-ns/event")
	b.ReportMetric(rawCPU, "raw-cpu-ns/event")
}

// mark is a moment of the benchmark: its wall clock and the process's CPU
// time.
type mark struct {
	wall time.Time
	cpu  time.Duration
}

func measure() mark { return mark{wall: time.Now(), cpu: cpuTime()} }

// rates returns n events since m as events per second and CPU nanoseconds
// per event.
func (m mark) rates(n int) (perSec, cpuNS float64) {
	return float64(n) / time.Since(m.wall).Seconds(), float64(cpuTime()-m.cpu) / float64(n)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rawInserts is the control: n event rows of 4 runs inserted on the store's
// own connection settings and schema by one loop, with a prepared statement
// and a commit every 128 rows (the most a group of BenchmarkAppendGroupCommit
// can hold). It pays for nothing the store adds: no hand-off, no seq lookup,
// no projection, no check of the data, no publish. It returns the rates of
// the loop alone (not of making the schema and the runs).
func rawInserts(b *testing.B, n int) (perSec, cpuNS float64) {
	path := filepath.Join(b.TempDir(), "raw.db")
	st, err := store.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	const runs = 4
	for i := range runs {
		if _, err := st.Append(context.Background(), created(fmt.Sprintf("r%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlite3", store.WriterDSN(path))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	data := string(event.New("", event.LLMDelta, "n3", event.LLMDeltaData{Text: "a token or two of streamed model text"}).Data)
	ctx := context.Background()
	const batch = 128
	seq := [runs]int64{1, 1, 1, 1} // run.created is seq 1
	m := measure()
	for i := 0; i < n; i += batch {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO events(run_id, seq, ts, type, node_id, data) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		ts := time.Now().UnixMilli()
		for j := i; j < min(i+batch, n); j++ {
			r := j % runs
			seq[r]++
			if _, err := ins.ExecContext(ctx, runNames[r], seq[r], ts, string(event.LLMDelta), "n3", data); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return m.rates(n)
}

var runNames = [...]string{"r0", "r1", "r2", "r3"}
