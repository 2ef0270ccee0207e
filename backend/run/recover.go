package run

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"steward/backend/event"
	"steward/backend/store"
	"steward/backend/tool"
	"steward/backend/workspace"
)

// Recover resumes the runs that a previous process left active: each is
// rebuilt from its log and paused with reason recovered. A model call that
// was in flight is interrupted (the next step calls the model again); a tool
// call that had started executing is interrupted too, and the person decides
// whether to retry it, skip it or cancel: it is never run again on its own.
// An approval that was open stays open and answerable. A cancel that was
// accepted and not yet carried out when the process died is carried out now.
// A run whose driver still lives (a lease held by a live process) is left to
// it, and the log says so. Call it once at start.
func (s *Service) Recover(ctx context.Context) (int, error) {
	runs, err := s.cfg.Store.ListRuns(ctx, store.RunFilter{
		Statuses: []string{string(Queued), string(Running), string(Pausing), string(Paused), string(Waiting)}, Limit: 100000})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range runs {
		if s.lookup(r.ID) != nil || r.ImportedFrom != "" {
			continue // driven already, or a recording: history, never resumed
		}
		if r.ReplayOf != "" {
			// A replay's model and tools come from its recording, which is
			// not at hand after a restart: resuming would hand the run to the
			// agent's real model. It ends, saying how to go on.
			if err := s.endReplay(ctx, r); errors.Is(err, ErrDriven) {
				s.cfg.Logf("%v: left to it", err)
				continue
			} else if err != nil {
				return n, err
			}
			continue
		}
		if err := s.resume(ctx, r); errors.Is(err, ErrDriven) {
			s.cfg.Logf("%v: left to it", err) // another live process drives it
			continue
		} else if err != nil {
			s.cfg.Logf("run %s: cannot resume: %v", r.ID, err)
			if _, err := s.cfg.Store.Append(ctx, event.New(r.ID, event.RunStatus, "", event.RunStatusData{
				Status: string(Failed), Reason: "recovery failed", Error: "Steward could not resume this run after a restart: " + err.Error(),
			})); err != nil {
				return n, err
			}
			continue
		}
		n++
	}
	return n, nil
}

// endReplay fails a replay that a previous process left active, unless
// another live process drives it.
func (s *Service) endReplay(ctx context.Context, r store.Run) error {
	if err := s.acquire(ctx, r.ID); err != nil {
		return err
	}
	defer s.release(r.ID)
	evs, err := s.allEvents(ctx, r.ID)
	if err != nil {
		return err
	}
	st := newRunState(r.ID)
	for _, ev := range evs {
		st.apply(ev)
	}
	s.withdraw(ctx, r.ID, died(st), stewardDied)
	msg := "Steward stopped during this replay, and a replay cannot be resumed: replay run " + r.ReplayOf + " again, or fork this run to go on with the live model."
	// Every node still open is closed, as a run's end closes them, so the
	// graph shows nothing running.
	var end []event.Event
	if st.llmOpen != "" {
		end = append(end, event.New(r.ID, event.NodeFinished, st.llmOpen, event.NodeFinishedData{Status: event.NodeInterrupted, Error: "Steward stopped during this model call"}))
	}
	for _, c := range st.calls {
		t := st.tools[c.ID]
		switch {
		case t == nil || t.finished || t.interrupted:
		case t.executing:
			end = append(end, event.New(r.ID, event.NodeFinished, t.node, event.NodeFinishedData{Status: event.NodeInterrupted, IsError: true,
				Error: "Steward stopped while this call ran: its outcome is unknown"}))
		default:
			end = append(end, event.New(r.ID, event.NodeFinished, t.node, event.NodeFinishedData{Status: event.NodeCancelled, IsError: true,
				Code: tool.CodeCancelled, Output: c.Name + " was not run: the replay ended"}))
		}
	}
	if st.root != "" {
		end = append(end, event.New(r.ID, event.NodeFinished, st.root, event.NodeFinishedData{Status: event.NodeFailed, Error: msg}))
	}
	end = append(end, event.New(r.ID, event.RunStatus, "", event.RunStatusData{Status: string(Failed), Reason: "replay interrupted", Error: msg}))
	for _, ev := range end {
		if _, err := s.cfg.Store.Append(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) resume(ctx context.Context, r store.Run) error {
	evs, err := s.allEvents(ctx, r.ID)
	if err != nil {
		return err
	}
	st := s.newRun(r.ID)
	var created event.RunCreatedData
	for _, ev := range evs {
		if ev.Type == event.RunCreated {
			_ = ev.Decode(&created)
		}
		st.apply(ev)
	}
	if st.agent.Name == "" {
		return fmt.Errorf("the log has no agent definition")
	}
	m, err := s.cfg.Models.Resolve(ctx, st.agent)
	if err != nil {
		return err
	}
	// A cancel accepted before the crash is the person's last word: the run
	// ends now, as it would have then.
	cancelled, err := s.cfg.Store.CommandAccepted(ctx, r.ID, CmdCancel)
	if err != nil {
		return err
	}
	st.model, st.unattended = m, created.Unattended
	st.env = s.envFor(r.ID, created.Workspace)
	if _, rec := s.project(st, st.agent, st.env.Workspace); rec != nil && rec.State != event.ProjectApproved && created.Project != nil && created.Project.State == event.ProjectApproved {
		s.cfg.Logf("run %s resumes without the project servers of %s: it is %s now", r.ID, rec.File, rec.State)
	}
	var asked []string // the questions of calls that died with the process
	a, err := s.launch(ctx, st, func(a *active) error {
		// What was in flight when the process died has an unknown outcome.
		if a.st.llmOpen != "" {
			a.emitLocked(event.NodeFinished, a.st.llmOpen, event.NodeFinishedData{Status: event.NodeInterrupted, Error: "Steward stopped during this model call"})
		}
		for _, c := range a.st.calls {
			if t := a.st.tools[c.ID]; t != nil && t.executing && !t.finished && !t.interrupted {
				a.emitLocked(event.NodeFinished, t.node, event.NodeFinishedData{Status: event.NodeInterrupted,
					Error: "Steward stopped while this call ran: its outcome is unknown"})
			}
		}
		if a.st.root == "" { // died before the run's first nodes
			a.st.root = a.st.newNode()
			a.emitLocked(event.NodeStarted, a.st.root, event.NodeStartedData{Kind: event.KindAgent, Label: a.st.agent.Name})
			if len(a.st.queued) == 0 && len(a.st.conv) == 0 {
				user := a.st.newNode()
				a.emitLocked(event.NodeStarted, user, event.NodeStartedData{Kind: event.KindUser, Parent: a.st.root, Label: "instructions", Text: created.Instructions})
				a.emitLocked(event.NodeFinished, user, event.NodeFinishedData{Status: event.NodeSucceeded})
			}
		}
		a.pauseAsked, a.pauseReason = true, "recovered"
		asked = died(a.st) // under mu: a command may fold into the state meanwhile
		return nil
	}, func(a *active) {
		s.withdraw(ctx, r.ID, asked, stewardDied)
	})
	if err == nil && cancelled {
		a.cancel(errCancelled)
		a.signal()
	}
	return err
}

// envFor is the tool environment of a run. A workspace that vanished is
// kept as recorded: the tools report it when they run.
func (s *Service) envFor(runID, ws string) tool.Env {
	if root, err := workspace.Open(ws); err == nil {
		ws = root.Path()
	}
	return tool.Env{RunID: runID, Workspace: ws, Artifacts: s.artifactsDir(runID)}
}

// artifactsDir is the folder of a run's artifacts, or "" when none are kept.
func (s *Service) artifactsDir(runID string) string {
	if s.cfg.Artifacts == "" {
		return ""
	}
	return filepath.Join(s.cfg.Artifacts, runID)
}
