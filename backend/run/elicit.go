package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"steward/backend/elicit"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/tool"
)

// Withdrawer closes an interaction nothing waits for any more; the inbox is
// one. The engine withdraws a server's question when the call that asked
// ends first, and after a restart the questions of calls that died.
type Withdrawer interface {
	Withdraw(ctx context.Context, id, why string) error
}

var _ Withdrawer = (*inbox.Inbox)(nil)

// elicitations asks the person what a running call's server asks
// (tool.Env.Elicit): each question is an interaction of kind elicitation
// on the call's node, opened in the process's own inbox (a replay's
// recorded answers are decisions on calls, never answers to a server), and
// the run waits while one is open. Only until the call returns: a question
// still open then is withdrawn.
type elicitations struct {
	s    *Service
	a    *active
	node string
	call string // the tool's name
	args json.RawMessage

	mu    sync.Mutex
	ended bool
	open  map[string]bool
}

func newElicitations(s *Service, a *active, node, call string, args json.RawMessage) *elicitations {
	return &elicitations{s: s, a: a, node: node, call: call, args: args, open: map[string]bool{}}
}

// waitingFor says why a run waits on a server's question.
func waitingFor(server string) string { return "input for the MCP server " + server }

func (e *elicitations) ask(ctx context.Context, q tool.Elicitation) (tool.ElicitAnswer, error) {
	a := e.a
	a.mu.Lock()
	unattended, runID := a.st.unattended, a.st.id
	timeout, _ := approvalTimeout(a.st.agent)
	a.mu.Unlock()
	if unattended {
		return tool.ElicitAnswer{Action: tool.ElicitDecline}, nil // nobody is there to ask
	}
	if _, ok := e.s.cfg.Approver.(Withdrawer); !ok {
		return tool.ElicitAnswer{Action: tool.ElicitDecline}, nil // what is asked could not be withdrawn
	}
	// What the server says is shown to a person and kept in the log: the
	// secrets the run knows are taken out first, as from a tool's output.
	redact := e.s.cfg.Redact
	q.Text, q.URL, q.Server = redact(q.Text), redact(q.URL), redact(q.Server)
	if len(q.Schema) > 0 {
		q.Schema = json.RawMessage(redact(string(q.Schema)))
		if err := elicit.CheckSchema(q.Schema); err != nil {
			return tool.ElicitAnswer{}, fmt.Errorf("the requested schema, with secrets taken out: %w", err)
		}
	}
	// The answer must come while the call still waits for it: the
	// interaction lapses with the call's deadline (or the agent's approval
	// timeout, when that is sooner).
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); timeout == 0 || left < timeout {
			timeout = left
		}
	}
	e.mu.Lock()
	if e.ended {
		e.mu.Unlock()
		return tool.ElicitAnswer{Action: tool.ElicitCancel}, nil
	}
	e.mu.Unlock()
	id, err := e.s.cfg.Approver.Open(context.WithoutCancel(ctx), inbox.Request{
		RunID: runID, NodeID: e.node, Tool: e.call, Arguments: e.args, Risk: string(tool.RiskRead),
		Reason: "the MCP server " + q.Server + " asks", Question: &q, Kind: event.InteractionElicitation,
		Timeout: timeout, DefaultDecision: event.DecisionDeny,
	})
	if err != nil {
		return tool.ElicitAnswer{}, err
	}
	e.mu.Lock()
	e.open[id] = true
	e.mu.Unlock()
	a.mu.Lock()
	a.eliciting++
	if a.st.status == Running {
		a.setStatusLocked(Waiting, waitingFor(q.Server), "", nil)
	}
	a.flushLocked()
	a.mu.Unlock()

	d, err := e.s.cfg.Approver.Wait(ctx, id)

	a.mu.Lock()
	a.eliciting--
	if a.eliciting == 0 && a.st.status == Waiting {
		a.setStatusLocked(Running, "", "", nil)
	}
	a.mu.Unlock()
	e.mu.Lock()
	delete(e.open, id)
	e.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			return tool.ElicitAnswer{}, err
		}
		// The call ended (its deadline, a cancel) before the answer.
		e.s.withdraw(ctx, runID, []string{id}, callEnded)
		return tool.ElicitAnswer{Action: tool.ElicitCancel}, nil
	}
	switch {
	case d.Decision == event.DecisionAnswer:
		return tool.ElicitAnswer{Action: tool.ElicitAccept, Content: d.Content}, nil
	case d.Source == inbox.SourceTimeout || d.Source == inbox.SourceWithdrawn:
		return tool.ElicitAnswer{Action: tool.ElicitCancel}, nil
	}
	return tool.ElicitAnswer{Action: tool.ElicitDecline}, nil
}

// end withdraws what is still open: the call returned without the answer
// (a tool the deadline left behind).
func (e *elicitations) end(ctx context.Context) {
	e.mu.Lock()
	e.ended = true
	var open []string
	for id := range e.open {
		open = append(open, id)
	}
	e.mu.Unlock()
	e.s.withdraw(ctx, e.a.st.id, open, callEnded)
}

// Why a question was withdrawn, as its feedback says.
const (
	callEnded   = "the call ended before an answer"
	stewardDied = "Steward stopped while the call waited for this answer"
)

// withdraw withdraws the questions ids of run runID, for why, once
// nothing waits for them; one answered meanwhile stays as answered.
func (s *Service) withdraw(ctx context.Context, runID string, ids []string, why string) {
	w, ok := s.cfg.Approver.(Withdrawer)
	if !ok {
		return
	}
	for _, id := range ids {
		if err := w.Withdraw(context.WithoutCancel(ctx), id, why); err != nil && !errors.Is(err, inbox.ErrNotFound) {
			s.cfg.Logf("run %s: withdraw %s: %v", runID, id, err)
		}
	}
}

// died are the questions of st's calls a previous process left open: their
// servers died with it, and nothing will read the answers. st must not
// change meanwhile (the run's mu held, or st not yet the run's).
func died(st *runState) []string {
	var ids []string
	for _, t := range st.tools {
		ids = append(ids, t.eliciting...)
	}
	return ids
}
