package api_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/api"
	"steward/backend/event"
	"steward/backend/run"
)

// countingLog counts the reads of run logs that pass through the server's
// Reader.
type countingLog struct {
	api.Reader
	reads atomic.Int64
}

func (c *countingLog) Events(ctx context.Context, runID string, after int64, limit int) ([]event.Event, error) {
	c.reads.Add(1)
	return c.Reader.Events(ctx, runID, after, limit)
}

// foldedBudget is the budget the engine's fold gives over the whole log of
// the run, as GET /budget answered before it had a fast path.
func (e *env) foldedBudget(id string) run.Budget {
	e.t.Helper()
	f := run.NewFold()
	for _, ev := range e.events(id) {
		f.Apply(ev)
	}
	return f.Budget()
}

// budgetOf reads GET /budget of run id and the reads of the log it took.
func (e *env) budgetOf(log *countingLog, id string) (run.Budget, int64) {
	e.t.Helper()
	var b run.Budget
	before := log.reads.Load()
	e.call("GET", "/api/v1/runs/"+id+"/budget", nil, http.StatusOK, &b)
	return b, log.reads.Load() - before
}

// GET /runs/{id}/budget answers a live run from the engine, without
// reading its log, and an ended one from a fold of its log remembered by
// its last seq: the same figures as a fold of the whole log, mid-way,
// after the end, and after a follow-up that changes them.
func TestRunBudgetFastPath(t *testing.T) {
	t.Parallel()
	log := &countingLog{}
	e := newEnvWith(t, func(c *api.Config) { log.Reader = c.Store; c.Store = log })
	r, _ := e.startRun("write the demo note")
	it := e.pending(r.ID) // mid-way: the engine waits for the person

	if !e.runs.Active(r.ID) {
		t.Fatal("a run waiting for an approval is not active")
	}
	live, reads := e.budgetOf(log, r.ID)
	if reads != 0 {
		t.Errorf("the budget of a live run read its log %d times, want none", reads)
	}
	if diff := cmp.Diff(e.foldedBudget(r.ID), live); diff != "" {
		t.Errorf("live budget differs from the fold of the log (-fold +answer):\n%s", diff)
	}
	if live.Steps == 0 {
		t.Errorf("live budget %+v counts no model call", live)
	}

	e.call("POST", "/api/v1/interactions/"+it.ID+"/answer", api.Answer{Decision: "approve"}, http.StatusOK, nil)
	e.waitStatus(r.ID, "completed")
	waitFor(t, "the run to leave the engine", func() bool { return !e.runs.Active(r.ID) })
	ended, reads := e.budgetOf(log, r.ID)
	if reads == 0 {
		t.Error("the budget of an ended run, first read, did not read its log")
	}
	if diff := cmp.Diff(e.foldedBudget(r.ID), ended); diff != "" {
		t.Errorf("ended budget differs from the fold of the log (-fold +answer):\n%s", diff)
	}
	if ended.Steps <= live.Steps {
		t.Errorf("steps %d after the end, %d mid-way", ended.Steps, live.Steps)
	}
	again, reads := e.budgetOf(log, r.ID)
	if reads != 0 {
		t.Errorf("a second read at the same seq read the log %d times, want none", reads)
	}
	if diff := cmp.Diff(ended, again); diff != "" {
		t.Errorf("second read differs (-first +second):\n%s", diff)
	}

	// A new turn moves the last seq: the remembered budget is not answered.
	e.call("POST", "/api/v1/runs/"+r.ID+"/follow-up", api.FollowUp{CommandID: "f1", Text: "And add a second line."}, http.StatusAccepted, nil)
	e.waitStatus(r.ID, "completed")
	waitFor(t, "the follow-up to leave the engine", func() bool { return !e.runs.Active(r.ID) })
	more, _ := e.budgetOf(log, r.ID)
	if diff := cmp.Diff(e.foldedBudget(r.ID), more); diff != "" {
		t.Errorf("budget after a follow-up differs from the fold of the log (-fold +answer):\n%s", diff)
	}
	if more.Steps <= ended.Steps {
		t.Errorf("steps %d after the follow-up, %d before", more.Steps, ended.Steps)
	}
}
