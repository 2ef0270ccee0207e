package run

import (
	"fmt"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/llm"
)

// Pricer prices one model call's usage in US dollars; known is false for a
// model without a price (its calls then cost nothing in the accounts).
type Pricer func(model string, u llm.Usage) (usd float64, known bool)

// limitsOf are the budgets an agent asks for.
func limitsOf(a agent.Agent) event.Limits {
	l := event.Limits{MaxSteps: a.MaxSteps, MaxTokens: a.MaxTokens, MaxCostUSD: a.MaxCostUSD}
	if d, err := time.ParseDuration(a.MaxWallTime); err == nil && d > 0 {
		l.MaxWallTimeMS = d.Milliseconds()
	}
	return l
}

// raise returns l with the non-zero fields of by.
func raise(l, by event.Limits) event.Limits {
	if by.MaxSteps > 0 {
		l.MaxSteps = by.MaxSteps
	}
	if by.MaxTokens > 0 {
		l.MaxTokens = by.MaxTokens
	}
	if by.MaxCostUSD > 0 {
		l.MaxCostUSD = by.MaxCostUSD
	}
	if by.MaxWallTimeMS > 0 {
		l.MaxWallTimeMS = by.MaxWallTimeMS
	}
	return l
}

// spentOut names the budget that the next model call would exceed, or "".
// Budgets are checked before model calls: that is where steps, tokens and
// cost grow. The wall time counts the time spent in model and tool calls,
// not the time the run waits for a person.
func (r *runState) spentOut(l event.Limits) string {
	switch {
	case l.MaxSteps > 0 && r.step >= l.MaxSteps:
		return fmt.Sprintf("max_steps %d reached", l.MaxSteps)
	case l.MaxTokens > 0 && r.tokens >= l.MaxTokens:
		return fmt.Sprintf("max_tokens %d reached (%d used)", l.MaxTokens, r.tokens)
	case l.MaxCostUSD > 0 && r.cost >= l.MaxCostUSD:
		return fmt.Sprintf("max_cost_usd $%.4f reached ($%.4f spent)", l.MaxCostUSD, r.cost)
	case l.MaxWallTimeMS > 0 && r.workMS >= l.MaxWallTimeMS:
		return fmt.Sprintf("max_wall_time %s reached (%s of calls)", time.Duration(l.MaxWallTimeMS)*time.Millisecond,
			(time.Duration(r.workMS) * time.Millisecond).Round(time.Second))
	}
	return ""
}

// Budget is a run's budgets and what it spent against them, counted as the
// engine counts them when it checks them (spentOut).
type Budget struct {
	Limits event.Limits `json:"limits"`
	// Steps are the model calls started; Tokens the input and output tokens
	// of those that finished; WallTimeMS the time spent in model and tool
	// calls, not waiting for a person.
	Steps      int     `json:"steps"`
	Tokens     int64   `json:"tokens"`
	CostUSD    float64 `json:"cost_usd"`
	WallTimeMS int64   `json:"wall_time_ms"`
}

// Budget is the run's budgets and spending as folded so far.
func (f *Fold) Budget() Budget {
	return Budget{Limits: f.limits, Steps: f.step, Tokens: f.tokens, CostUSD: f.cost, WallTimeMS: f.workMS}
}

// Budget is the budgets and spending of a run this process drives, as the
// engine counts them now: the figures spentOut checks, read from the
// run's state under its lock, without touching the log. ok is false for a
// run not active here; its figures are the fold of its log (Fold.Budget).
//
// The state folds the run's own events as they are emitted, a group commit
// (milliseconds) before they are in the log, and the events others write
// (approvals, answers) change no figure by themselves: so the answer is the
// fold of the log once the run's last events have committed, and never
// behind it.
func (s *Service) Budget(runID string) (b Budget, ok bool) {
	a := s.lookup(runID)
	if a == nil {
		return Budget{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.st.Budget(), true
}
