package exchange_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/store"
	"steward/backend/workspace"
)

// bigEnv is an exchange over a real store holding one run of turns turns
// shaped like internal/e2e's bigRun (10 events a turn: a model call
// streaming three deltas, a tool call with its decision, a plan update),
// plus a file change with a blob of about 5 KB every 100th turn (100 of
// them in a 10,000-turn run).
type bigEnv struct {
	st     *store.Store
	blobs  *workspace.Blobs
	ex     *exchange.Service
	run    string
	events int
	db     string
}

func newBigEnv(tb testing.TB, turns int) *bigEnv {
	tb.Helper()
	dir := tb.TempDir()
	db := filepath.Join(dir, "steward.db")
	st, err := store.Open(db, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	blobs, err := workspace.NewBlobs(filepath.Join(dir, "blobs"))
	if err != nil {
		tb.Fatal(err)
	}
	var n atomic.Int64
	e := &bigEnv{st: st, blobs: blobs, run: "run_big", db: db}
	e.ex = exchange.New(exchange.Config{Store: st, Blobs: blobs, Artifacts: filepath.Join(dir, "artifacts"), Version: "bench",
		NewID:   func(p string) string { return fmt.Sprintf("%s_%d", p, n.Add(1)) },
		Secrets: func() []string { return []string{"sk-bench-configured-secret-value"} },
		Player:  func() ([]byte, error) { return []byte("<!doctype html><html><head></head><body></body></html>"), nil }})
	evs := bigTurns(tb, e.run, turns, blobs)
	for i := 0; i < len(evs); i += 500 {
		if _, err := st.SubmitAll(evs[i:min(i+500, len(evs))]).Wait(); err != nil {
			tb.Fatal(err)
		}
	}
	e.events = len(evs)
	return e
}

func bigTurns(tb testing.TB, id string, turns int, blobs *workspace.Blobs) []event.Event {
	evs := []event.Event{
		event.New(id, event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{ID: "ag_big", Name: "big", Provider: "script", Model: "script"},
			Instructions: "a long run", Workspace: "/ws", Mode: "auto", MaxSteps: turns + 1}),
		event.New(id, event.RunStatus, "", event.RunStatusData{Status: "running"}),
		event.New(id, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "big"}),
		event.New(id, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindUser, Parent: "n1", Label: "instructions", Text: "a long run"}),
		event.New(id, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded}),
	}
	after := "n2"
	prev := map[string]string{}
	for i := range turns {
		llm, tl := fmt.Sprintf("n%d", 3+2*i), fmt.Sprintf("n%d", 4+2*i)
		path := fmt.Sprintf("src/file%d.go", i%20)
		args := json.RawMessage(fmt.Sprintf(`{"path":%q}`, path))
		text := fmt.Sprintf("Step %d: reading the next file to see how the pieces fit together.", i)
		evs = append(evs,
			event.New(id, event.NodeStarted, llm, event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: []string{after}, Label: fmt.Sprintf("model call %d", i+1), Step: i + 1, Model: "script"}),
			event.New(id, event.LLMDelta, llm, event.LLMDeltaData{Text: text[:20]}),
			event.New(id, event.LLMDelta, llm, event.LLMDeltaData{Text: text[20:40]}),
			event.New(id, event.LLMDelta, llm, event.LLMDeltaData{Text: text[40:]}),
			event.New(id, event.NodeFinished, llm, event.NodeFinishedData{Status: event.NodeSucceeded, Text: text,
				ToolCalls: []event.ToolCall{{ID: "c" + tl, Name: "read_file", Arguments: args}}, Usage: &event.Usage{InputTokens: 900, OutputTokens: 40}}),
			event.New(id, event.NodeStarted, tl, event.NodeStartedData{Kind: event.KindTool, Parent: llm, After: []string{llm}, Label: "read_file",
				Tool: "read_file", CallID: "c" + tl, Arguments: args, Risk: "read"}),
			event.New(id, event.PolicyDecided, tl, event.PolicyDecidedData{Effect: "allow", Reason: "mode auto: read_file runs without asking"}),
			event.New(id, event.ToolExecuting, tl, event.ToolExecutingData{}),
		)
		if i%100 == 0 {
			content := []byte(fmt.Sprintf("package src\n// version %d\n%s", i, strings.Repeat(fmt.Sprintf("func f%d() {}\n", i), 350)))
			sum, err := blobs.Put(content)
			if err != nil {
				tb.Fatal(err)
			}
			evs = append(evs, event.New(id, event.FileChanged, tl, event.FileChangedData{Path: path, Before: prev[path], After: sum,
				Size: int64(len(content)), Source: event.FileByTool, Op: tl}))
			prev[path] = sum
		}
		evs = append(evs,
			event.New(id, event.NodeFinished, tl, event.NodeFinishedData{Status: event.NodeSucceeded,
				Output: strings.Repeat(fmt.Sprintf("package src // file %d\n", i), 8), DurationMS: 2}),
			event.New(id, event.RunPlan, tl, event.RunPlanData{Steps: []event.PlanStep{{Title: "read everything", Status: "in_progress"}}}))
		after = tl
	}
	return append(evs,
		event.New(id, event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded}),
		event.New(id, event.RunStatus, "", event.RunStatusData{Status: "completed"}))
}

// logBytes is the size of the run's log as stored: the sum of its events'
// data.
func (e *bigEnv) logBytes(tb testing.TB) uint64 {
	var n uint64
	after := int64(0)
	for {
		page, err := e.st.Events(context.Background(), e.run, after, 5000)
		if err != nil {
			tb.Fatal(err)
		}
		for _, ev := range page {
			n += uint64(len(ev.Data))
		}
		if len(page) < 5000 {
			return n
		}
		after = page[len(page)-1].Seq
	}
}
