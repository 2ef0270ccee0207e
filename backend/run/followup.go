package run

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"steward/backend/event"
	"steward/backend/store"
	"steward/backend/workspace"
)

// A follow-up continues a run that ended, as a chat does: the person's
// message opens a new turn of the same run, and the run goes back to
// running (status.go's one move out of an end). The turn is in the log, so
// everything that folds it sees it, and a run killed during it resumes as
// any run does (Recover):
//
//	run.limits          only when the follow-up raises a budget
//	run.status running  reason "follow-up"
//	node.finished ...   the calls the last turn asked for and never ran,
//	                    cancelled (a run that failed between its calls)
//	node.started  agent the turn's root, after the last model call: the
//	                    turn's model and tool calls hang from it, and it
//	                    ends with the turn, so that every node still closes
//	                    exactly once
//	node.started  user  label "follow-up", the message; then its
//	node.finished       (a user message is complete once recorded)
//
// These commit in one transaction with the command's answer, as every
// command's effect does: a follow-up is accepted exactly when its turn is in
// the log, and a second one (from another tab, another surface, another
// process) finds the run running and is refused.
//
// Budgets count every turn of the run: the fold adds steps, tokens, cost
// and time over the whole log. A follow-up that the budgets would stop at
// once is refused, naming the budget, rather than accepted into a pause:
// the command can raise the limits (as continue can) in the same breath.

// followUpReason is the reason of the run.status a follow-up records.
const followUpReason = "follow-up"

// followUp opens a new turn of run r, which has ended, with c's text, and
// drives the run again. record saves the answer with the turn's events.
func (s *Service) followUp(ctx context.Context, r store.Run, c Command, record func(CommandResult, []event.Event) error) CommandResult {
	origin, err := OriginOf(ctx, s.cfg.Store, r)
	if err != nil {
		return rejected(CodeInvalidState, "read run %s: %v", r.ID, err)
	}
	if origin.Foreign {
		return rejected(CodeInvalidState, "%s: a new turn would run on settings not chosen on this machine; fork it from a node with one of your agents instead", origin.Reason)
	}
	// The goroutine of a run leaves the active set just after its end
	// commits: it must be gone before another drives the run.
	if old := s.lookup(r.ID); old != nil {
		select {
		case <-old.done:
		case <-ctx.Done():
			return rejected(CodeInvalidState, "the run is still ending: %v", ctx.Err())
		}
	}
	evs, err := s.allEvents(ctx, r.ID)
	if err != nil {
		return rejected(CodeInvalidState, "read run %s: %v", r.ID, err)
	}
	st := s.newRun(r.ID)
	var created event.RunCreatedData
	for _, ev := range evs {
		if ev.Type == event.RunCreated {
			_ = ev.Decode(&created)
		}
		st.apply(ev)
	}
	if !st.status.Terminal() || st.root == "" {
		return rejected(CodeInvalidState, "the log of run %s does not end its turn (status %s): it cannot take a follow-up", r.ID, st.status)
	}
	limits := st.limits
	if c.Limits != nil {
		limits = raise(limits, *c.Limits)
	}
	if out := st.spentOut(limits); out != "" {
		return rejected(CodeInvalidState, "budget: %s; the budgets count every turn of the run: follow up with higher limits", out)
	}
	root, err := workspace.Open(created.Workspace)
	if err != nil {
		return rejected(CodeInvalidState, "the run's workspace: %v", err)
	}
	// The run's own agent spec, as a resume takes it: the new turn, and the
	// run resumed after a crash in it, are driven by the same settings.
	m, err := s.cfg.Models.Resolve(ctx, st.agent)
	if err != nil {
		return rejected(CodeInvalidState, "agent %s: %v", st.agent.Name, err)
	}
	st.model, st.unattended = m, created.Unattended
	st.env = s.envFor(r.ID, root.Path())
	s.project(st, st.agent, st.env.Workspace)
	text := c.Text
	_, err = s.launch(ctx, st, func(a *active) error {
		// Another process may have followed the run up between the read
		// above and the lease launch took: the fold would be stale.
		if now, err := s.cfg.Store.GetRun(ctx, r.ID); err != nil {
			return err
		} else if now.LastSeq != a.st.seq {
			return fmt.Errorf("%w: the run changed while the follow-up was prepared (it is %s now)", errFollowedUp, now.Status)
		}
		var turn []event.Event
		a.staged = &turn
		if c.Limits != nil {
			a.emitLocked(event.RunLimits, "", event.RunLimitsData{Limits: limits})
		}
		a.setStatusLocked(Running, followUpReason, "", nil)
		a.closeUndoneLocked("the run " + string(a.st.status) + " before it")
		var after []string
		if a.st.lastLLM != "" {
			after = []string{a.st.lastLLM}
		}
		turnRoot := a.st.newNode()
		a.emitLocked(event.NodeStarted, turnRoot, event.NodeStartedData{Kind: event.KindAgent, After: after,
			Label: a.st.agent.Name + " · turn " + strconv.Itoa(a.st.turns+1)})
		user := a.st.newNode()
		a.emitLocked(event.NodeStarted, user, event.NodeStartedData{Kind: event.KindUser, Parent: turnRoot, Label: followUpReason, Text: text})
		a.emitLocked(event.NodeFinished, user, event.NodeFinishedData{Status: event.NodeSucceeded})
		a.staged = nil
		if err := record(accepted, turn); err != nil {
			return err
		}
		a.foldCommittedLocked(turn)
		return nil
	}, nil)
	switch {
	case errors.Is(err, ErrDriven), errors.Is(err, errFollowedUp):
		return rejected(CodeInvalidState, "%v", err)
	case err != nil:
		s.cfg.Logf("run %s: follow-up: %v", r.ID, err)
		return rejected(CodeInvalidState, "could not record the follow-up: %v", err)
	}
	return accepted
}

// errFollowedUp is a follow-up that lost to another one.
var errFollowedUp = errors.New("another follow-up came first")
