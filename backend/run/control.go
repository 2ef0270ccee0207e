package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"steward/backend/event"
	"steward/backend/store"
	"steward/backend/tool"
)

// Command is a control command.
type Command struct {
	CommandID string `json:"command_id"`
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	NodeID    string `json:"node_id,omitempty"`
	// Limits raise the run's budgets, with continue or step.
	Limits *event.Limits `json:"limits,omitempty"`
	// Tool is the tool a break or unbreak is about.
	Tool string `json:"tool,omitempty"`
	// Agent (an id or name of this machine's agents) and Workspace (a
	// folder) go with fork: the new run's agent and folder instead of the
	// source run's. A fork of a foreign run (see Origin) needs both.
	Agent     string `json:"agent,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	// Files goes with fork: what becomes of the workspace's files (see
	// forkFiles); empty is keep.
	Files event.ForkFilesChoice `json:"files,omitempty"`
}

// CommandResult is the answer to a command. Fork, when accepted, names the
// new run.
type CommandResult struct {
	CommandID string `json:"command_id"`
	Status    string `json:"status"` // accepted or rejected
	Code      string `json:"code,omitempty"`
	Message   string `json:"message,omitempty"`
	Fork      string `json:"fork,omitempty"`
}

// maxSteer bounds a steer message.
const maxSteer = 64 << 10

// Command applies c to the run. A command_id seen before returns the first
// answer and changes nothing. Errors wrap ErrInvalid or ErrNotFound; a
// command that cannot apply now is an answer, rejected with a code.
func (s *Service) Command(ctx context.Context, runID string, c Command) (CommandResult, error) {
	if strings.TrimSpace(c.CommandID) == "" || len(c.CommandID) > 128 {
		return CommandResult{}, fmt.Errorf("%w: command_id must be 1-128 characters", ErrInvalid)
	}
	if !slices.Contains(Commands, c.Type) {
		return CommandResult{}, fmt.Errorf("%w: command type %q is not one of %s", ErrInvalid, c.Type, strings.Join(Commands, ", "))
	}
	if (c.Type == CmdSteer || c.Type == CmdFollowUp) && (strings.TrimSpace(c.Text) == "" || len(c.Text) > maxSteer) {
		return CommandResult{}, fmt.Errorf("%w: %s needs a message (text) of 1 to %d bytes, not only white space", ErrInvalid, c.Type, maxSteer)
	}
	if (c.Type == CmdBreak || c.Type == CmdUnbreak) != (c.Tool != "") {
		return CommandResult{}, fmt.Errorf("%w: tool goes with break and unbreak, and only with them", ErrInvalid)
	}
	if c.Type == CmdFork && c.NodeID == "" {
		return CommandResult{}, fmt.Errorf("%w: fork needs node_id", ErrInvalid)
	}
	if c.Type != CmdFork && (c.Agent != "" || c.Workspace != "") {
		return CommandResult{}, fmt.Errorf("%w: agent and workspace go with fork, and only with it", ErrInvalid)
	}
	if c.Type != CmdFork && c.Files != "" {
		return CommandResult{}, fmt.Errorf("%w: files goes with fork, and only with it", ErrInvalid)
	}
	if err := checkForkFiles(c); err != nil {
		return CommandResult{}, err
	}
	if c.Limits != nil {
		if c.Type != CmdContinue && c.Type != CmdStep && c.Type != CmdFollowUp {
			return CommandResult{}, fmt.Errorf("%w: limits go with continue, step or follow_up", ErrInvalid)
		}
		if err := checkLimits(*c.Limits); err != nil {
			return CommandResult{}, err
		}
	}
	defer s.locks.lock(runID)()
	if first, ok, err := s.cfg.Store.LookupCommand(ctx, runID, c.CommandID); err != nil {
		return CommandResult{}, err
	} else if ok {
		var res CommandResult
		return res, json.Unmarshal(first, &res)
	}
	if c.Type == CmdFork {
		if err := s.checkForkChoice(ctx, c); err != nil {
			return CommandResult{}, err
		}
	}
	r, err := s.cfg.Store.GetRun(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return CommandResult{}, fmt.Errorf("%w: %s", ErrNotFound, runID)
	}
	if err != nil {
		return CommandResult{}, err
	}
	saved := false
	// record saves the answer to c together with evs, the events of its
	// effect: both commit in one transaction, or neither does.
	record := func(res CommandResult, evs []event.Event) error {
		res.CommandID = c.CommandID
		b, _ := json.Marshal(res)
		_, err := s.cfg.Store.SubmitCommand(store.CommandRecord{RunID: runID, CommandID: c.CommandID, Type: c.Type, Result: b}, evs).Wait()
		saved = err == nil
		return err
	}
	res := s.apply(ctx, r, c, record)
	res.CommandID = c.CommandID
	if !saved {
		b, _ := json.Marshal(res)
		if _, _, err := s.cfg.Store.SaveCommand(context.WithoutCancel(ctx), runID, c.CommandID, c.Type, b); err != nil {
			return CommandResult{}, err
		}
	}
	return res, nil
}

func rejected(code, format string, args ...any) CommandResult {
	return CommandResult{Status: "rejected", Code: code, Message: fmt.Sprintf(format, args...)}
}

func refused(r *Refusal) CommandResult {
	return CommandResult{Status: "rejected", Code: r.Code, Message: r.Message}
}

var accepted = CommandResult{Status: "accepted"}

// apply decides c and applies it. record saves the answer with the events
// of its effect; apply calls it wherever the effect is recorded, so that a
// saved answer always has its effect in the log, and Command saves the
// answers apply did not (rejections, forks).
func (s *Service) apply(ctx context.Context, r store.Run, c Command, record func(CommandResult, []event.Event) error) CommandResult {
	// What the stored run says is settled (a recording, an end) decides
	// now; its other statuses may be behind the engine's, which decides
	// below.
	stored := SituationOf(r)
	// A follow-up is decided by the stored status too: a run that has not
	// ended is driven, and takes a steer instead.
	if no := stored.Refusal(c.Type); no != nil && (c.Type == CmdFork || c.Type == CmdFollowUp || stored.Imported || stored.Status.Terminal()) {
		return refused(no)
	}
	switch c.Type {
	case CmdFork:
		return s.fork(ctx, r, c)
	case CmdFollowUp:
		return s.followUp(ctx, r, c, record)
	}
	a := s.lookup(r.ID)
	if a == nil {
		// r may have been read just before the run ended here: a run leaves
		// the active set only once its end has committed, so read it again.
		if now, err := s.cfg.Store.GetRun(ctx, r.ID); err == nil && Status(now.Status).Terminal() {
			return rejected(CodeTerminal, "the run is already %s", now.Status)
		}
		if holder, live, err := s.cfg.Store.LeaseHolder(ctx, r.ID); err == nil && live {
			return rejected(CodeInvalidState, "another Steward process (pid %d, perhaps steward run) drives this run: send %s there", holder.PID, c.Type)
		}
		if c.Type != CmdCancel {
			return rejected(CodeInvalidState, "no Steward process drives this run: restart the server to resume it")
		}
		// Left behind by a process that stopped: record the end directly.
		if err := record(accepted, []event.Event{event.New(r.ID, event.RunStatus, "",
			event.RunStatusData{Status: string(Cancelled), Reason: "cancelled by the user"})}); err != nil {
			return rejected(CodeInvalidState, "could not record the cancel: %v", err)
		}
		return accepted
	}
	if c.Type == CmdCancel {
		// The end is recorded by the run's goroutine; a crash before it
		// leaves this answer, which the next start carries out (Recover).
		if err := record(accepted, nil); err != nil {
			return rejected(CodeInvalidState, "could not record the command: %v", err)
		}
		a.cancel(errCancelled) // wins over everything: the goroutine records the end
		a.signal()
		return accepted
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.st.status
	act := a.st.next()
	if no := (Situation{RunID: r.ID, Status: st, Next: act.describe()}).Refusal(c.Type); no != nil {
		return refused(no)
	}
	// Decide first, with no side effect; then record the effect's events and
	// the answer in one commit. After a crash a repeated command_id finds
	// the answer exactly when the effect is in the log: a command is never
	// applied twice (a retry applied twice would run a tool twice) and never
	// answered accepted with its effect lost. What an effect decides is an
	// event, never only a field of memory that a crash would lose.
	var effect func()
	switch c.Type {
	case CmdPause:
		effect = func() {
			a.pauseAsked, a.pauseReason = true, "paused by the user"
			if st != Queued { // a queued run pauses at its first safe point
				a.setStatusLocked(Pausing, "pause asked", "", nil)
			}
		}
	case CmdContinue, CmdStep:
		limits := a.st.limits
		if c.Limits != nil {
			limits = raise(limits, *c.Limits)
		}
		if act.kind == actModel {
			if out := a.st.spentOut(limits); out != "" {
				return rejected(CodeInvalidState, "budget: %s; continue with higher limits", out)
			}
		}
		effect = func() {
			if c.Limits != nil {
				a.emitLocked(event.RunLimits, "", event.RunLimitsData{Limits: limits})
			}
			a.stepping = c.Type == CmdStep
			// A pause not yet taken (the one Recover asks for, when the log
			// already says paused) must not swallow the person's go-ahead.
			a.pauseAsked, a.pauseReason = false, ""
			a.setStatusLocked(Running, c.Type, "", nil)
		}
	case CmdRetry, CmdSkip:
		if c.NodeID != "" && c.NodeID != act.tool.node {
			return rejected(CodeInvalidState, "node %s is not the interrupted call; %s (node %s) is", c.NodeID, act.call.Name, act.tool.node)
		}
		effect = func() {
			a.pauseAsked, a.pauseReason = false, "" // as for continue
			a.setStatusLocked(Running, c.Type+" "+act.tool.node, "", nil)
			// The decision is the new node of the call, retry_of the
			// interrupted one: a retry runs it (callTool), a skip ends it here.
			node := s.startToolLocked(a, act.call, act.tool.node)
			if c.Type == CmdSkip {
				res := tool.Errorf(event.NodeInterrupted, "the call was interrupted by a restart and the user chose to skip it: its outcome is unknown; check before relying on it")
				a.emitLocked(event.NodeFinished, node, event.NodeFinishedData{
					Status: event.NodeFailed, Output: res.Output, IsError: res.IsError, Code: res.Code})
			}
		}
	case CmdSteer:
		effect = func() {
			node := a.st.newNode()
			a.emitLocked(event.NodeStarted, node, event.NodeStartedData{Kind: event.KindUser, Parent: a.st.root, Label: "steer", Text: c.Text})
			a.emitLocked(event.NodeFinished, node, event.NodeFinishedData{Status: event.NodeSucceeded})
		}
	case CmdBreak, CmdUnbreak:
		if !tool.Uses(a.st.agent.Tools, c.Tool) {
			return rejected(CodeInvalidState, "this run's agent has no tool %q; it can use: %s", c.Tool, strings.Join(a.st.agent.Tools, ", "))
		}
		on := c.Type == CmdBreak
		if slices.Contains(a.st.breakBefore, c.Tool) == on {
			return accepted // already so: nothing to record
		}
		effect = func() {
			next := slices.DeleteFunc(slices.Clone(a.st.breakBefore), func(t string) bool { return t == c.Tool })
			if on {
				next = append(next, c.Tool)
			}
			a.emitLocked(event.RunBreakpoints, "", event.RunBreakpointsData{BreakBefore: next})
		}
	default:
		return rejected(CodeUnsupported, "%s is not supported", c.Type)
	}
	// The effect's events are staged, committed with the answer, and only
	// then folded: a command that could not be recorded changes nothing,
	// in the log or in memory.
	a.flushLocked() // what the run emitted before commits first, in order
	var evs []event.Event
	pauseAsked, pauseReason, stepping := a.pauseAsked, a.pauseReason, a.stepping
	a.staged = &evs
	effect()
	a.staged = nil
	if err := record(accepted, evs); err != nil {
		a.pauseAsked, a.pauseReason, a.stepping = pauseAsked, pauseReason, stepping
		s.cfg.Logf("run %s: record %s: %v", r.ID, c.Type, err)
		return rejected(CodeInvalidState, "could not record the command: %v", err)
	}
	a.foldCommittedLocked(evs)
	a.signal()
	return accepted
}

func (s *Service) allEvents(ctx context.Context, runID string) ([]event.Event, error) {
	var all []event.Event
	after := int64(0)
	for {
		evs, err := s.cfg.Store.Events(ctx, runID, after, 1000)
		if err != nil {
			return nil, err
		}
		all = append(all, evs...)
		if len(evs) < 1000 {
			return all, nil
		}
		after = evs[len(evs)-1].Seq
	}
}
