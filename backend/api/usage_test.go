package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/api"
	"steward/backend/run"
)

// GET /usage adds up the runs as their rows say, by each grouping and
// period, and refuses a bad grouping or day by name.
func TestUsageReport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.completedRun()
	today := time.UnixMilli(done.CreatedAt).UTC().Format(time.DateOnly)
	want := api.UsageRow{Runs: 1, First: done.CreatedAt, Steps: int64(done.Steps), Usage: done.Usage}
	if done.Steps == 0 {
		t.Fatalf("the demo run made no model call: %+v", done)
	}
	tests := []struct {
		query      string
		key, label string
	}{
		{"", done.ID, done.AgentName},
		{"?group=run", done.ID, done.AgentName},
		{"?group=agent", done.AgentName, done.AgentName},
		{"?group=model", done.Provider + "/" + done.Model, done.Provider + "/" + done.Model},
		{"?group=day&from=" + today + "&to=" + today, today, today},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var got api.UsageReport
			e.with(t).call("GET", "/api/v1/usage"+tt.query, nil, http.StatusOK, &got)
			w := want
			w.Key, w.Label = tt.key, tt.label
			if diff := cmp.Diff([]api.UsageRow{w}, got.Rows); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if got.Total != done.Usage || got.Runs != 1 {
				t.Errorf("total %+v of %d runs, want %+v of 1", got.Total, got.Runs, done.Usage)
			}
		})
	}
	var none api.UsageReport
	e.call("GET", "/api/v1/usage?group=day&to=2000-01-01", nil, http.StatusOK, &none)
	if len(none.Rows) != 0 || none.Runs != 0 {
		t.Errorf("usage up to 2000: %+v, want no rows", none)
	}

	bad := []struct{ query, mention string }{
		{"?group=week", `"week"`},
		{"?from=yesterday", `from "yesterday" is not a day`},
		{"?to=2026-13-01", `to "2026-13-01" is not a day`},
		{"?from=2026-03-02&to=2026-03-01", "before from"},
		{"?since=2026-03-01", `"since"`},
		{"?group=run&group=day", "given 2 times"},
	}
	for _, tt := range bad {
		t.Run(tt.query, func(t *testing.T) {
			msg := wantError(t, e.with(t).do("GET", "/api/v1/usage"+tt.query, nil), 400, "invalid")
			if !strings.Contains(msg, tt.mention) {
				t.Errorf("message %q does not mention %q", msg, tt.mention)
			}
		})
	}
}

// GET /runs/{id}/budget is the run's budgets and what it spent, the same
// spending as its row.
func TestRunBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.completedRun()
	var b run.Budget
	e.call("GET", "/api/v1/runs/"+done.ID+"/budget", nil, http.StatusOK, &b)
	if b.Steps != done.Steps || b.Tokens != done.Usage.InputTokens+done.Usage.OutputTokens || b.CostUSD != done.Usage.CostUSD {
		t.Errorf("budget %+v, want the run's spending: %d steps, usage %+v", b, done.Steps, done.Usage)
	}
	if b.Limits.MaxSteps == 0 {
		t.Errorf("budget %+v has no max_steps; every run has one", b)
	}
	wantError(t, e.do("GET", "/api/v1/runs/run_nope/budget", nil), 404, "not_found")
}
