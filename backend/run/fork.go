package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"steward/backend/event"
	"steward/backend/store"
	"steward/backend/workspace"
)

// CodeNeedsChoice is the rejection code of a fork of a foreign run (see
// Origin) that did not name one of this machine's agents and a workspace:
// a client asks the person for both and sends the fork again.
const CodeNeedsChoice = "needs_choice"

// checkForkChoice refuses, before anything is recorded, an agent that does
// not exist and a workspace that is not a folder.
func (s *Service) checkForkChoice(ctx context.Context, c Command) error {
	if c.Agent != "" {
		if _, err := s.cfg.Store.GetAgent(ctx, c.Agent); errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%w: agent %q does not exist on this machine", ErrInvalid, c.Agent)
		} else if err != nil {
			return err
		}
	}
	if c.Workspace != "" {
		if strings.TrimSpace(c.Workspace) == "" {
			return fmt.Errorf("%w: workspace is blank", ErrInvalid)
		}
		if _, err := workspace.Open(c.Workspace); err != nil {
			return fmt.Errorf("%w: workspace: %v", ErrInvalid, err)
		}
	}
	return nil
}

// fork starts a new run, paused, whose conversation is the source run's up
// to and including node, and links the two runs. Its settings are the
// chosen agent's and folder when the command names them (and must, for a
// foreign source), else the source run's with its agent's current
// provider (see Origin).
func (s *Service) fork(ctx context.Context, r store.Run, c Command) CommandResult {
	node := c.NodeID
	evs, err := s.allEvents(ctx, r.ID)
	if err != nil {
		return rejected(CodeInvalidState, "read run %s: %v", r.ID, err)
	}
	src := newRunState(r.ID)
	var created event.RunCreatedData
	found, after := false, int64(0)
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
			found, after = true, ev.Seq
			break
		}
	}
	if !found {
		return rejected(CodeInvalidState, "node %s of run %s has not finished (or does not exist); fork from a finished node", node, r.ID)
	}
	if src.root == node {
		return rejected(CodeInvalidState, "node %s is the run itself; fork from one of its steps", node)
	}
	origin, err := OriginOf(ctx, s.cfg.Store, r)
	if err != nil {
		return rejected(CodeInvalidState, "read run %s: %v", r.ID, err)
	}
	if origin.Foreign && (c.Agent == "" || c.Workspace == "") {
		return rejected(CodeNeedsChoice, "%s: the settings it records (its workspace, provider, base URL, model, mode and rules) are not used on this machine; "+
			"choose one of this machine's agents and a workspace (agent and workspace) to fork it with", origin.Reason)
	}

	fc := created // the source's, for a fork with its own settings
	spec, ws := src.agent, created.Workspace
	if c.Agent != "" {
		a, err := s.cfg.Store.GetAgent(ctx, c.Agent)
		if err != nil {
			return rejected(CodeInvalidState, "agent %s: %v", c.Agent, err)
		}
		// A run of the chosen agent as Start makes one; only the
		// instructions (content) come from the source.
		spec = effective(a, "", nil, s.cfg.Rules)
		limits := limitsOf(spec)
		fc = event.RunCreatedData{Instructions: created.Instructions, Mode: spec.Mode, Rules: eventRules(spec.Rules),
			MaxSteps: spec.MaxSteps, BreakBefore: spec.BreakBefore, Limits: &limits}
	} else {
		cur := origin.Agent
		spec.Provider, spec.Model, spec.BaseURL, spec.Script = cur.Provider, cur.Model, cur.BaseURL, cur.Script
	}
	if c.Workspace != "" {
		ws = c.Workspace
	}
	m, err := s.cfg.Models.Resolve(ctx, spec)
	if err != nil {
		return rejected(CodeInvalidState, "agent %s: %v", spec.Name, err)
	}
	id := s.cfg.NewID("run")
	ws, files, no := s.forkFiles(ctx, r, c.Files, forkFilesParams{node: node, after: after, fork: id, ws: ws,
		ownFolder: sameFolder(ws, created.Workspace)})
	if no != nil {
		return *no
	}
	st := s.newRun(id)
	st.model, st.unattended = m, fc.Unattended
	st.env = s.envFor(id, ws)
	// The fork's workspace's project servers, as approved now.
	spec, fc.Project = s.project(st, spec, st.env.Workspace)
	b, err := json.Marshal(spec)
	if err != nil {
		return rejected(CodeInvalidState, "agent %s: %v", spec.Name, err)
	}
	history := src.request() // repaired: calls without results get one
	fc.Agent = event.AgentRef{ID: spec.ID, Name: spec.Name, Provider: m.Name, Model: m.Model, Demo: m.Demo}
	fc.Spec, fc.Workspace = b, st.env.Workspace
	fc.ForkedFrom = &event.NodeRef{RunID: r.ID, NodeID: node}
	fc.ReplayOf = "" // a fork of a replay goes on live: it is no replay
	fc.History = toEventMessages(history)
	fc.ForkFiles = files
	fc.Sandbox = eventSandbox(s.sandboxState(spec)) // as the fork's commands will run here, now
	_, err = s.launch(ctx, st, func(a *active) error {
		a.emitLocked(event.RunCreated, "", fc)
		return nil
	}, func(a *active) {
		a.mu.Lock()
		a.st.root = a.st.newNode()
		a.emitLocked(event.NodeStarted, a.st.root, event.NodeStartedData{Kind: event.KindAgent, Label: fmt.Sprintf("%s (fork of %s at %s)", spec.Name, r.ID, node)})
		a.pauseAsked, a.pauseReason = true, "forked from "+r.ID+" at "+node
		a.mu.Unlock()
	})
	if err != nil {
		switch files.Choice {
		case event.ForkCopy:
			if rerr := os.RemoveAll(ws); rerr != nil {
				s.cfg.Logf("run %s: remove the copy %s of a fork that was not made: %v", r.ID, ws, rerr)
			}
		case event.ForkRestore:
			if files.Op != "" {
				return rejected(CodeInvalidState, "%v (the files were put back as they were at %s: undo %s in the Files of run %s to take that back)", err, node, files.Op, r.ID)
			}
		}
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
