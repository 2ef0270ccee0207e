package run_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/redact"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

// BenchmarkEngineSteps measures what one step costs the engine in process
// with the durable store on disk (one model call with streamed text and one
// tool call, every event committed), over runs of N=200 and N=1000 steps
// after a warm-up run of 20 in the same store. It reports, in milliseconds:
//
//   - ms/step: the run's whole time over N (from its first model call to its
//     last), the figure the target is set on (≤0.28);
//   - ms/step-p50, ms/step-first20, ms/step-last20: the median step, and the
//     medians of the first and the last 20 steps;
//   - last/first: last20 over first20, which says whether a step gets dearer
//     as the run grows (target ≤1.2);
//   - control-ms/step: in the same run, a raw SQLite loop (database/sql and
//     mattn/go-sqlite3, WAL, the store's pragmas, on disk, one prepared
//     statement per row) that inserts the rows the engine's step inserted
//     (its events, and the nodes, edges and run counters they project to),
//     in the same transactions as the store committed them, so that a
//     reader can judge the figure on a loaded machine;
//   - engine/control: the two side by side.
func BenchmarkEngineSteps(b *testing.B) {
	for _, n := range []int{200, 1000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var total, p50, first, last, control []float64
			for range b.N {
				r := engineSteps(b, n)
				total = append(total, r.total)
				p50 = append(p50, median(r.per))
				first = append(first, median(r.per[:20]))
				last = append(last, median(r.per[len(r.per)-20:]))
				control = append(control, r.control)
			}
			b.ReportMetric(median(total), "ms/step")
			b.ReportMetric(median(p50), "ms/step-p50")
			b.ReportMetric(median(first), "ms/step-first20")
			b.ReportMetric(median(last), "ms/step-last20")
			b.ReportMetric(median(last)/median(first), "last/first")
			b.ReportMetric(median(control), "control-ms/step")
			b.ReportMetric(median(total)/median(control), "engine/control")
			b.ReportMetric(0, "ns/op") // the whole-run time is not the figure
		})
	}
}

// stepsResult is one measured run: ms per step over the run, each step's
// time, and the control's ms per step.
type stepsResult struct {
	total   float64
	per     []float64
	control float64
}

// commits is the store's Publisher in the benchmark: it notes the size of
// every group the store commits (it publishes each once, after its commit),
// so that the control commits the same rows in the same transactions.
type commits struct {
	mu    sync.Mutex
	sizes map[string][]int // by run id
}

func (c *commits) Publish(evs []event.Event) {
	if len(evs) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := 0; i < len(evs); {
		j := i + 1
		for j < len(evs) && evs[j].RunID == evs[i].RunID {
			j++
		}
		c.sizes[evs[i].RunID] = append(c.sizes[evs[i].RunID], j-i)
		i = j
	}
}

// stepsModel is the fake model of BenchmarkEngineSteps: it answers the
// i-th call with ten words of streamed text and a call of noop, and after
// the last step with "Done.". Its own cost does not grow with the
// conversation (the script provider's reads the whole request to find its
// turn), so the figures are the engine's.
type stepsModel struct {
	steps int
	// tool and args are the call of each step: noop with {} when empty.
	tool string
	args json.RawMessage
	mu   sync.Mutex
	n    int
	at   []time.Time // when each call started
}

func (m *stepsModel) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	m.mu.Lock()
	m.at = append(m.at, time.Now())
	m.n++
	n := m.n
	m.mu.Unlock()
	if n > m.steps {
		on(llm.Delta{Kind: llm.DeltaText, Text: "Done."})
		return &llm.Response{Text: "Done.", StopReason: llm.StopEnd, Model: "bench", Usage: llm.Usage{InputTokens: 100, OutputTokens: 2}}, nil
	}
	text := fmt.Sprintf("Step %d: checking one more thing before I go on.", n)
	for _, w := range strings.SplitAfter(text, " ") {
		on(llm.Delta{Kind: llm.DeltaText, Text: w})
	}
	call := llm.ToolCall{ID: fmt.Sprintf("call_%d_0", n), Name: "noop", Arguments: json.RawMessage(`{}`)}
	if m.tool != "" {
		call.Name, call.Arguments = m.tool, m.args
	}
	on(llm.Delta{Kind: llm.DeltaToolArgs, Text: string(call.Arguments), ToolName: call.Name})
	return &llm.Response{Text: text, ToolCalls: []llm.ToolCall{call}, StopReason: llm.StopToolCalls, Model: "bench",
		Usage: llm.Usage{InputTokens: 100, OutputTokens: 12}}, nil
}

func engineSteps(b testing.TB, steps int) stepsResult {
	dir := b.TempDir()
	log := &commits{sizes: map[string][]int{}}
	st, err := store.Open(filepath.Join(dir, "bench.db"), &store.Options{Publisher: log})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	reg := tool.NewRegistry()
	if err := reg.Register(tool.Must(tool.New("noop", "does nothing", tool.RiskRead,
		func(context.Context, tool.Env, struct{}) (tool.Result, error) { return tool.Result{Output: "ok"}, nil }))); err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	n := 0
	id := func(p string) string { mu.Lock(); defer mu.Unlock(); n++; return fmt.Sprint(p, n) }
	// The redactor as main.go builds it: two keys and the token in force.
	secrets := redact.NewLive(func() []string {
		return []string{"sk-proj-benchmarkKey0123456789abcdefABCDEF", "sk-ant-api03-benchmarkKey0123456789abcdef", "0123456789abcdef0123456789abcdef"}
	})
	ws := b.TempDir()
	one := func(steps int) (string, *stepsModel) {
		cp := &stepsModel{steps: steps}
		svc := run.New(run.Config{Store: st, Approver: inbox.New(st, nil, func() string { return id("ia") }),
			Tools: reg, Models: benchModels{cp}, NewID: id, Redact: secrets.String})
		defer func() { _ = svc.Shutdown(context.Background()) }()
		a := agent.Default()
		a.Tools, a.MaxSteps = []string{"noop"}, steps+1
		r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "benchmark", Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		if done := svc.Done(r.ID); done != nil { // nil: it ended already
			<-done
		}
		final, _ := st.GetRun(context.Background(), r.ID)
		if final.Status != "completed" || len(cp.at) != steps+1 {
			b.Fatalf("run %s after %d calls: %s", final.Status, len(cp.at), final.Error)
		}
		return r.ID, cp
	}
	one(20) // warm-up: the store's pages, the allocator, the caches
	runID, cp := one(steps)
	res := stepsResult{total: float64(cp.at[len(cp.at)-1].Sub(cp.at[0]).Microseconds()) / 1000 / float64(steps)}
	for i := 1; i < len(cp.at); i++ {
		res.per = append(res.per, float64(cp.at[i].Sub(cp.at[i-1]).Microseconds())/1000)
	}
	evs, err := st.Events(context.Background(), runID, 0, 1<<30)
	if err != nil {
		b.Fatal(err)
	}
	log.mu.Lock()
	sizes := slices.Clone(log.sizes[runID])
	log.mu.Unlock()
	res.control = controlInserts(b, filepath.Join(dir, "control.db"), evs, sizes) / float64(steps)
	return res
}

// controlInserts commits evs (a run's log) and the projection rows their
// engine wrote (a node per node.started, with its edges, the node's end,
// the run's last seq and step count) into a fresh database with the
// store's schema, raw: one transaction per batch of sizes, one prepared
// statement per row. It returns the time in milliseconds, the run's
// creation left out.
func controlInserts(b testing.TB, path string, evs []event.Event, sizes []int) float64 {
	st, err := store.Open(path, nil) // the schema, as the store makes it
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	// The store's pragmas (store.go).
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000&_foreign_keys=on&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	runID := evs[0].RunID
	if _, err := db.Exec(`INSERT INTO runs(id, agent_id, agent_name, status, instructions, workspace, mode, provider, model, max_steps, created_at, updated_at)
		VALUES (?, '', 'bench', 'running', 'benchmark', '/ws', 'auto', 'script', 'bench', 0, 0, 0)`, runID); err != nil {
		b.Fatal(err)
	}
	prep := func(q string) *sql.Stmt {
		s, err := db.Prepare(q)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	insEvent := prep(`INSERT INTO events(run_id, seq, ts, type, node_id, data) VALUES (?, ?, ?, ?, ?, ?)`)
	insNode := prep(`INSERT INTO nodes(run_id, id, seq, kind, status, label, parent, tool, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	insEdge := prep(`INSERT OR IGNORE INTO edges(run_id, src, dst, kind) VALUES (?, ?, ?, ?)`)
	endNode := prep(`UPDATE nodes SET status = ?, finished_at = ?, duration_ms = ? WHERE run_id = ? AND id = ?`)
	lastSeq := prep(`UPDATE runs SET last_seq = ?, updated_at = ? WHERE id = ?`)
	step := prep(`UPDATE runs SET steps = steps + 1 WHERE id = ?`)
	evs = evs[1:] // run.created made the run above
	if len(sizes) > 0 {
		sizes[0]--
	}
	start := time.Now()
	for _, size := range sizes {
		if size <= 0 {
			continue
		}
		size = min(size, len(evs))
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		for _, ev := range evs[:size] {
			if _, err := tx.Stmt(insEvent).Exec(ev.RunID, ev.Seq, ev.TS, string(ev.Type), ev.NodeID, []byte(ev.Data)); err != nil {
				b.Fatal(err)
			}
			switch ev.Type {
			case event.NodeStarted:
				var d event.NodeStartedData
				_ = ev.Decode(&d)
				if _, err := tx.Stmt(insNode).Exec(ev.RunID, ev.NodeID, ev.Seq, d.Kind, "running", d.Label, d.Parent, d.Tool, ev.TS); err != nil {
					b.Fatal(err)
				}
				if d.Parent != "" {
					if _, err := tx.Stmt(insEdge).Exec(ev.RunID, d.Parent, ev.NodeID, "parent"); err != nil {
						b.Fatal(err)
					}
				}
				for _, a := range d.After {
					if _, err := tx.Stmt(insEdge).Exec(ev.RunID, a, ev.NodeID, "after"); err != nil {
						b.Fatal(err)
					}
				}
				if d.Kind == event.KindLLM {
					if _, err := tx.Stmt(step).Exec(ev.RunID); err != nil {
						b.Fatal(err)
					}
				}
			case event.NodeFinished:
				var d event.NodeFinishedData
				_ = ev.Decode(&d)
				if _, err := tx.Stmt(endNode).Exec(d.Status, ev.TS, d.DurationMS, ev.RunID, ev.NodeID); err != nil {
					b.Fatal(err)
				}
			}
		}
		if _, err := tx.Stmt(lastSeq).Exec(evs[size-1].Seq, evs[size-1].TS, runID); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		evs = evs[size:]
	}
	return float64(time.Since(start).Microseconds()) / 1000
}
