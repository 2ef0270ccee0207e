package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/store"
)

// Usage adds up the runs' rows by run, agent, model and day, in [from, to),
// leaving out imported runs.
func TestUsage(t *testing.T) {
	t.Parallel()
	day := int64(24 * 3600 * 1000)
	d0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := d0
	st, err := store.Open(filepath.Join(t.TempDir(), "steward.db"), &store.Options{Now: func() time.Time { return time.UnixMilli(now) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	// run adds a run of agent on provider/model at ts with one model call.
	run := func(id, agent, provider, model string, ts, in, out int64, cost float64) {
		now = ts
		mustAppend(t, st, event.New(id, event.RunCreated, "", event.RunCreatedData{
			Agent: event.AgentRef{ID: "ag_" + agent, Name: agent, Provider: provider, Model: model}, Instructions: "x",
			Workspace: "/tmp/ws", Mode: "ask", MaxSteps: 10,
		}))
		mustAppend(t, st, event.New(id, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindLLM, Label: "model call"}))
		mustAppend(t, st, event.New(id, event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded,
			Usage: &event.Usage{InputTokens: in, OutputTokens: out, CachedTokens: 1}, CostUSD: cost}))
	}
	run("r1", "coder", "openai", "gpt", d0+1000, 100, 10, 0.5)
	run("r2", "coder", "anthropic", "claude", d0+day+5, 200, 20, 1.5)
	run("r3", "review", "openai", "gpt", d0+day+9, 300, 30, 0.25)
	run("r4", "review", "openai", "gpt", d0+3*day, 1000, 100, 9) // after the window below
	// An imported recording of someone else's run, in the window: left out.
	imported := []event.Event{
		event.New("r5", event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{ID: "ag_coder", Name: "coder", Provider: "openai", Model: "gpt"},
			Instructions: "x", Workspace: "/elsewhere", Mode: "ask", MaxSteps: 10}),
		event.New("r5", event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindLLM, Label: "model call"}),
		event.New("r5", event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded,
			Usage: &event.Usage{InputTokens: 1e6, OutputTokens: 1e6}, CostUSD: 100}),
	}
	for i := range imported {
		imported[i].TS = d0 + 1500 + int64(i)
	}
	if _, err := st.ImportRun(ctx, imported, "run_theirs"); err != nil {
		t.Fatal(err)
	}
	if r, err := st.GetRun(ctx, "r5"); err != nil || r.InputTokens != 1e6 || r.CreatedAt < d0 || r.CreatedAt >= d0+2*day {
		t.Fatalf("imported run %+v (%v): want its usage on its row, started in the window", r, err)
	}

	rows := func(f store.UsageFilter) []store.UsageRow {
		t.Helper()
		got, err := st.Usage(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	window := func(g store.UsageGroup) store.UsageFilter {
		return store.UsageFilter{Group: g, From: d0, To: d0 + 2*day}
	}
	tests := []struct {
		name string
		f    store.UsageFilter
		want []store.UsageRow
	}{
		{"by run, newest first", window(store.UsageByRun), []store.UsageRow{
			{Key: "r3", Label: "review", Runs: 1, First: d0 + day + 9, Steps: 1, InputTokens: 300, OutputTokens: 30, CachedTokens: 1, CostUSD: 0.25},
			{Key: "r2", Label: "coder", Runs: 1, First: d0 + day + 5, Steps: 1, InputTokens: 200, OutputTokens: 20, CachedTokens: 1, CostUSD: 1.5},
			{Key: "r1", Label: "coder", Runs: 1, First: d0 + 1000, Steps: 1, InputTokens: 100, OutputTokens: 10, CachedTokens: 1, CostUSD: 0.5},
		}},
		{"by agent, most expensive first", window(store.UsageByAgent), []store.UsageRow{
			{Key: "coder", Label: "coder", Runs: 2, First: d0 + 1000, Steps: 2, InputTokens: 300, OutputTokens: 30, CachedTokens: 2, CostUSD: 2},
			{Key: "review", Label: "review", Runs: 1, First: d0 + day + 9, Steps: 1, InputTokens: 300, OutputTokens: 30, CachedTokens: 1, CostUSD: 0.25},
		}},
		{"by model", window(store.UsageByModel), []store.UsageRow{
			{Key: "anthropic/claude", Label: "anthropic/claude", Runs: 1, First: d0 + day + 5, Steps: 1, InputTokens: 200, OutputTokens: 20, CachedTokens: 1, CostUSD: 1.5},
			{Key: "openai/gpt", Label: "openai/gpt", Runs: 2, First: d0 + 1000, Steps: 2, InputTokens: 400, OutputTokens: 40, CachedTokens: 2, CostUSD: 0.75},
		}},
		{"by day, in calendar order", window(store.UsageByDay), []store.UsageRow{
			{Key: "2026-03-01", Label: "2026-03-01", Runs: 1, First: d0 + 1000, Steps: 1, InputTokens: 100, OutputTokens: 10, CachedTokens: 1, CostUSD: 0.5},
			{Key: "2026-03-02", Label: "2026-03-02", Runs: 2, First: d0 + day + 5, Steps: 2, InputTokens: 500, OutputTokens: 50, CachedTokens: 2, CostUSD: 1.75},
		}},
		{"no upper bound", store.UsageFilter{Group: store.UsageByDay, From: d0 + 2*day}, []store.UsageRow{
			{Key: "2026-03-04", Label: "2026-03-04", Runs: 1, First: d0 + 3*day, Steps: 1, InputTokens: 1000, OutputTokens: 100, CachedTokens: 1, CostUSD: 9},
		}},
		{"an empty window", store.UsageFilter{Group: store.UsageByAgent, From: d0 + 10*day}, []store.UsageRow{}},
		{"limit", store.UsageFilter{Group: store.UsageByRun, Limit: 1}, []store.UsageRow{
			{Key: "r4", Label: "review", Runs: 1, First: d0 + 3*day, Steps: 1, InputTokens: 1000, OutputTokens: 100, CachedTokens: 1, CostUSD: 9},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, rows(tc.f)); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := st.Usage(ctx, store.UsageFilter{Group: "week"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("usage by week: %v, want ErrInvalid", err)
	}
}
