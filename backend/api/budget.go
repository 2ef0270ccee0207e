package api

import (
	"context"
	"net/http"
	"sync"

	"steward/backend/run"
	"steward/backend/store"
)

var _ Runs = (*run.Service)(nil)

// budget answers a run's budgets and what it spent against them, as the
// engine counts them: the UI asks every few seconds while a run is live,
// so no answer reads the whole log twice. A run this process drives is
// answered from the engine's state (Runs.Budget), which folds every event
// as the run emits it; any other run (ended, a recording, driven by
// another process) by the engine's own fold of its log up to its last
// seq, remembered by that seq (budgetCache).
func (s *Server) budget(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	// The engine first, then the row: a run leaves the engine only once
	// its end has committed, so a run not driven here is read with its end.
	b, live := s.cfg.Runs.Budget(id)
	rn, err := s.cfg.Store.GetRun(r.Context(), id)
	if err != nil {
		return err
	}
	if !live {
		if b, err = s.budgets.get(r.Context(), s.cfg.Store, rn); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, b)
	return nil
}

// maxBudgets bounds the budgets remembered: one per run the UI has open in
// a tab is all that is read again, and an entry is under 100 bytes.
const maxBudgets = 256

// budgetCache remembers the budget folded from the log of runs not driven
// here, each at the seq it was folded to. A run's log only grows and seqs
// are dense, so the fold up to a seq never changes: an entry is good while
// the run's last seq (and creation, which tells a run from another of the
// same id) is the same.
type budgetCache struct {
	mu   sync.Mutex
	runs map[string]foldedBudget
}

type foldedBudget struct {
	created, seq int64
	budget       run.Budget
}

// get returns the budget of rn, folded from its log up to rn.LastSeq
// unless it is remembered at that seq.
func (c *budgetCache) get(ctx context.Context, log Reader, rn store.Run) (run.Budget, error) {
	c.mu.Lock()
	got, ok := c.runs[rn.ID]
	c.mu.Unlock()
	if ok && got.seq == rn.LastSeq && got.created == rn.CreatedAt {
		return got.budget, nil
	}
	b, err := foldBudget(ctx, log, rn.ID, rn.LastSeq)
	if err != nil {
		return run.Budget{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[string]foldedBudget{}
	}
	if _, ok := c.runs[rn.ID]; !ok && len(c.runs) >= maxBudgets {
		for k := range c.runs { // any one: a run read again is folded again
			delete(c.runs, k)
			break
		}
	}
	c.runs[rn.ID] = foldedBudget{created: rn.CreatedAt, seq: rn.LastSeq, budget: b}
	return b, nil
}

// foldBudget folds the log of run id up to seq upTo with the engine's fold,
// a page at a time. Events written after upTo are left out, so that the
// budget is the one of that seq.
func foldBudget(ctx context.Context, log Reader, id string, upTo int64) (run.Budget, error) {
	const page = 1000
	f := run.NewFold()
	for after := int64(0); after < upTo; {
		evs, err := log.Events(ctx, id, after, page)
		if err != nil {
			return run.Budget{}, err
		}
		for _, ev := range evs {
			if ev.Seq > upTo {
				return f.Budget(), nil
			}
			f.Apply(ev)
		}
		if len(evs) < page {
			break
		}
		after = evs[len(evs)-1].Seq
	}
	return f.Budget(), nil
}
