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

var commandTypes = []string{CmdPause, CmdContinue, CmdStep, CmdSteer, CmdCancel, CmdFork, CmdRetry, CmdSkip, CmdBreak, CmdUnbreak}

// maxSteer bounds a steer message.
const maxSteer = 64 << 10

// Command applies c to the run. A command_id seen before returns the first
// answer and changes nothing. Errors wrap ErrInvalid or ErrNotFound; a
// command that cannot apply now is an answer, rejected with a code.
func (s *Service) Command(ctx context.Context, runID string, c Command) (CommandResult, error) {
	if strings.TrimSpace(c.CommandID) == "" || len(c.CommandID) > 128 {
		return CommandResult{}, fmt.Errorf("%w: command_id must be 1-128 characters", ErrInvalid)
	}
	known := false
	for _, t := range commandTypes {
		known = known || t == c.Type
	}
	if !known {
		return CommandResult{}, fmt.Errorf("%w: command type %q is not one of %s", ErrInvalid, c.Type, strings.Join(commandTypes, ", "))
	}
	if c.Type == CmdSteer && (strings.TrimSpace(c.Text) == "" || len(c.Text) > maxSteer) {
		return CommandResult{}, fmt.Errorf("%w: steer needs text of 1 to %d bytes", ErrInvalid, maxSteer)
	}
	if (c.Type == CmdBreak || c.Type == CmdUnbreak) != (c.Tool != "") {
		return CommandResult{}, fmt.Errorf("%w: tool goes with break and unbreak, and only with them", ErrInvalid)
	}
	if c.Type == CmdFork && c.NodeID == "" {
		return CommandResult{}, fmt.Errorf("%w: fork needs node_id", ErrInvalid)
	}
	if c.Limits != nil {
		if c.Type != CmdContinue && c.Type != CmdStep {
			return CommandResult{}, fmt.Errorf("%w: limits go with continue or step", ErrInvalid)
		}
		if err := checkLimits(*c.Limits); err != nil {
			return CommandResult{}, err
		}
	}
	s.cmdMu.Lock()
	defer s.cmdMu.Unlock()
	if first, ok, err := s.cfg.Store.LookupCommand(ctx, runID, c.CommandID); err != nil {
		return CommandResult{}, err
	} else if ok {
		var res CommandResult
		return res, json.Unmarshal(first, &res)
	}
	r, err := s.cfg.Store.GetRun(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return CommandResult{}, fmt.Errorf("%w: %s", ErrNotFound, runID)
	}
	if err != nil {
		return CommandResult{}, err
	}
	saved := false
	save := func(res CommandResult) error {
		res.CommandID = c.CommandID
		b, _ := json.Marshal(res)
		_, _, err := s.cfg.Store.SaveCommand(context.WithoutCancel(ctx), runID, c.CommandID, c.Type, b)
		saved = err == nil
		return err
	}
	res := s.apply(ctx, r, c, save)
	res.CommandID = c.CommandID
	if !saved {
		if err := save(res); err != nil {
			return CommandResult{}, err
		}
	}
	return res, nil
}

func rejected(code, format string, args ...any) CommandResult {
	return CommandResult{Status: "rejected", Code: code, Message: fmt.Sprintf(format, args...)}
}

var accepted = CommandResult{Status: "accepted"}

// apply decides c and applies it. save records the answer; apply calls it
// before any effect where a repeat could do harm, and Command saves the
// answers apply did not.
func (s *Service) apply(ctx context.Context, r store.Run, c Command, save func(CommandResult) error) CommandResult {
	if c.Type == CmdFork {
		return s.fork(ctx, r, c.NodeID)
	}
	if r.ImportedFrom != "" {
		return rejected(CodeInvalidState, "run %s was imported from a recording and is read-only: fork it from a node to go on from there", r.ID)
	}
	if Status(r.Status).Terminal() {
		return rejected(CodeTerminal, "the run is already %s", r.Status)
	}
	a := s.lookup(r.ID)
	if a == nil {
		// r may have been read just before the run ended here: a run leaves
		// the active set only once its end has committed, so read it again.
		if now, err := s.cfg.Store.GetRun(ctx, r.ID); err == nil && Status(now.Status).Terminal() {
			return rejected(CodeTerminal, "the run is already %s", now.Status)
		}
		if holder, live, err := s.cfg.Store.LeaseHolder(ctx, r.ID); err == nil && live && !holderGone(holder) {
			pid, _, _ := strings.Cut(holder, ":")
			return rejected(CodeInvalidState, "another Steward process (pid %s, perhaps steward run) drives this run: send %s there", pid, c.Type)
		}
		if c.Type != CmdCancel {
			return rejected(CodeInvalidState, "no Steward process drives this run: restart the server to resume it")
		}
		// Left behind by a process that stopped: record the end directly.
		_, err := s.cfg.Store.Append(context.WithoutCancel(ctx), event.New(r.ID, event.RunStatus, "",
			event.RunStatusData{Status: string(Cancelled), Reason: "cancelled by the user"}))
		if err != nil {
			return rejected(CodeInvalidState, "could not record the cancel: %v", err)
		}
		return accepted
	}
	if c.Type == CmdCancel {
		if err := save(accepted); err != nil {
			return rejected(CodeInvalidState, "could not record the command: %v", err)
		}
		a.cancel(errCancelled) // wins over everything: the goroutine records the end
		a.signal()
		return accepted
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.st.status
	if st.Terminal() {
		return rejected(CodeTerminal, "the run is already %s", st)
	}
	act := a.st.next()
	interrupted := st == Paused && act.kind == actTool && act.tool != nil && act.tool.interrupted
	// Decide first, with no side effect; save the answer; then act. After a
	// crash between the two, a repeated command_id finds the answer and
	// changes nothing: a command may be lost, never applied twice (a retry
	// applied twice would run a tool twice).
	var effect func()
	switch c.Type {
	case CmdPause:
		switch st {
		case Running, Waiting:
			effect = func() {
				a.pauseAsked, a.pauseReason = true, "paused by the user"
				a.setStatusLocked(Pausing, "pause asked", "", nil)
			}
		case Queued:
			effect = func() { a.pauseAsked, a.pauseReason = true, "paused by the user" }
		default:
			return rejected(CodeInvalidState, "the run is already %s", st)
		}
	case CmdContinue, CmdStep:
		if st != Paused {
			return rejected(CodeInvalidState, "%s needs a paused run; this one is %s", c.Type, st)
		}
		if interrupted {
			return rejected(CodeInvalidState, "%s (node %s) was interrupted: retry it, skip it or cancel the run", act.call.Name, act.tool.node)
		}
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
		if !interrupted {
			return rejected(CodeInvalidState, "%s applies to an interrupted tool call of a paused run; there is none", c.Type)
		}
		if c.NodeID != "" && c.NodeID != act.tool.node {
			return rejected(CodeInvalidState, "node %s is not the interrupted call; %s (node %s) is", c.NodeID, act.call.Name, act.tool.node)
		}
		effect = func() {
			a.resolve = c.Type
			a.pauseAsked, a.pauseReason = false, "" // as for continue
			a.setStatusLocked(Running, c.Type+" "+act.tool.node, "", nil)
		}
	case CmdSteer:
		switch st {
		case Running, Pausing, Paused, Waiting:
		default:
			return rejected(CodeInvalidState, "steer needs a running or paused run; this one is %s", st)
		}
		effect = func() {
			node := a.st.newNode()
			a.emitLocked(event.NodeStarted, node, event.NodeStartedData{Kind: event.KindUser, Parent: a.st.root, Label: "steer", Text: c.Text})
			a.emitLocked(event.NodeFinished, node, event.NodeFinishedData{Status: event.NodeSucceeded})
		}
	case CmdBreak, CmdUnbreak:
		if !slices.Contains(a.st.agent.Tools, c.Tool) {
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
	res := accepted
	if err := save(res); err != nil {
		return rejected(CodeInvalidState, "could not record the command: %v", err)
	}
	effect()
	a.flushLocked()
	a.signal()
	return res
}

// fork starts a new run, paused, whose conversation is the source run's up
// to and including node, and links the two runs.
func (s *Service) fork(ctx context.Context, r store.Run, node string) CommandResult {
	evs, err := s.allEvents(ctx, r.ID)
	if err != nil {
		return rejected(CodeInvalidState, "read run %s: %v", r.ID, err)
	}
	src := newRunState(r.ID)
	var created event.RunCreatedData
	found := false
	for _, ev := range evs {
		if ev.Type == event.RunCreated {
			_ = ev.Decode(&created)
		}
		src.apply(ev)
		if ev.NodeID == node && ev.Type == event.NodeFinished {
			var d event.NodeFinishedData
			_ = ev.Decode(&d)
			if d.Status == event.NodeInterrupted {
				return rejected(CodeInvalidState, "node %s was interrupted; fork from a node that finished", node)
			}
			found = true
			break
		}
	}
	if !found {
		return rejected(CodeInvalidState, "node %s of run %s has not finished (or does not exist); fork from a finished node", node, r.ID)
	}
	if src.root == node {
		return rejected(CodeInvalidState, "node %s is the run itself; fork from one of its steps", node)
	}
	m, err := s.cfg.Models.Resolve(ctx, src.agent)
	if err != nil {
		return rejected(CodeInvalidState, "agent %s: %v", src.agent.Name, err)
	}
	id := s.cfg.NewID("run")
	st := s.newRun(id)
	st.model, st.unattended = m, created.Unattended
	st.env = s.envFor(id, created.Workspace)
	history := src.request() // repaired: calls without results get one
	fc := created
	fc.Agent.Provider, fc.Agent.Model, fc.Agent.Demo = m.Name, m.Model, m.Demo
	fc.ForkedFrom = &event.NodeRef{RunID: r.ID, NodeID: node}
	fc.ReplayOf = "" // a fork of a replay goes on live: it is no replay
	fc.Sandbox = eventSandbox(s.sandboxState(src.agent))
	fc.History = toEventMessages(history)
	_, err = s.launch(ctx, st, func(a *active) {
		a.emitLocked(event.RunCreated, "", fc)
	}, func(a *active) {
		a.mu.Lock()
		a.st.root = a.st.newNode()
		a.emitLocked(event.NodeStarted, a.st.root, event.NodeStartedData{Kind: event.KindAgent, Label: fmt.Sprintf("%s (fork of %s at %s)", src.agent.Name, r.ID, node)})
		a.pauseAsked, a.pauseReason = true, "forked from "+r.ID+" at "+node
		a.mu.Unlock()
	})
	if err != nil {
		return rejected(CodeInvalidState, "%v", err)
	}
	link := event.New(r.ID, event.RunForked, "", event.RunForkedData{NodeID: node, Fork: id})
	if a := s.lookup(r.ID); a != nil {
		a.mu.Lock()
		a.emitLocked(link.Type, "", event.RunForkedData{NodeID: node, Fork: id})
		a.flushLocked()
		a.mu.Unlock()
	} else if _, err := s.cfg.Store.Append(context.WithoutCancel(ctx), link); err != nil {
		s.cfg.Logf("run %s: record fork %s: %v", r.ID, id, err)
	}
	res := accepted
	res.Fork = id
	return res
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
