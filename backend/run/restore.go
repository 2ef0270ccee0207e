package run

import (
	"context"
	"errors"
	"fmt"

	"steward/backend/event"
	"steward/backend/fault"
	"steward/backend/store"
	"steward/backend/workspace"
)

// ErrNoJournal is returned by Restore when Steward keeps no journal
// (Config.Blobs is nil): this server cannot restore files at all.
var ErrNoJournal = fault.New(fault.Unsupported, "no file journal is kept")

// FileChanges returns the run's journal of workspace files, in order.
func (s *Service) FileChanges(ctx context.Context, runID string) ([]store.FileChange, error) {
	if _, err := s.cfg.Store.GetRun(ctx, runID); err != nil {
		return nil, err
	}
	return s.cfg.Store.FileChanges(ctx, runID)
}

// Files returns the files view of the run's journal (workspace.ViewFiles),
// with the diffs of the contents kept; without a journal (Config.Blobs
// nil) the changes have no diffs.
func (s *Service) Files(ctx context.Context, runID string) (workspace.FilesView, error) {
	changes, err := s.FileChanges(ctx, runID)
	if err != nil {
		return workspace.FilesView{}, err
	}
	logged := make([]workspace.Logged, len(changes))
	for i, c := range changes {
		logged[i] = workspace.Logged{Recorded: workspace.Recorded{Change: workspace.Change{Path: c.Path, Before: c.Before, After: c.After,
			BeforeUnknown: c.BeforeUnknown, Size: c.Size}, Op: c.Op, Seq: c.Seq}, NodeID: c.NodeID, Source: c.Source, Undoes: c.Undoes, CreatedAt: c.CreatedAt}
	}
	o := workspace.ViewOptions{Missing: "no diff: the content was not kept (larger than 16 MiB)"}
	if s.cfg.Ignored != nil {
		if r, err := s.cfg.Store.GetRun(ctx, runID); err == nil && r.ImportedFrom == "" {
			ignored, done := s.cfg.Ignored(r.Workspace)
			defer done()
			o.Ignored = ignored
		}
	}
	if s.cfg.Blobs != nil {
		o.Content = func(sum string) ([]byte, bool) {
			b, err := s.cfg.Blobs.Get(sum)
			return b, err == nil
		}
	}
	return workspace.ViewFiles(logged, o), nil
}

// Restore takes back changes of the run's files: an undo of one op, a
// revert of the whole run, or a rewind to before a node. It first checks
// that every file holds what the journal says the run left (a
// *workspace.ConflictError lists those that do not, and nothing is
// written), then writes, and records the changes it made as one new op,
// which can itself be undone. A run that is acting (running, pausing) is
// refused: pause it first. It holds the run's command lock throughout, so
// a run that was stopped when it looked stays stopped until it is done: a
// continue, or the answer to the run's approval, waits for it.
func (s *Service) Restore(ctx context.Context, runID string, p RestoreParams) (RestoreResult, error) {
	if s.cfg.Blobs == nil {
		return RestoreResult{}, ErrNoJournal
	}
	defer s.locks.lock(runID)()
	r, err := s.cfg.Store.GetRun(ctx, runID)
	if err != nil {
		return RestoreResult{}, err
	}
	return s.restoreLocked(ctx, r, p.Kind, func(all []store.FileChange) ([]store.FileChange, string, error) {
		return s.selectChanges(ctx, runID, all, p)
	})
}

// restoreLocked is Restore of the changes pick selects (with what they
// undo, for the record), under the run's command lock, which the caller
// holds; kind names the op.
func (s *Service) restoreLocked(ctx context.Context, r store.Run, kind string, pick func([]store.FileChange) ([]store.FileChange, string, error)) (RestoreResult, error) {
	if s.cfg.Blobs == nil {
		return RestoreResult{}, ErrNoJournal
	}
	s.restoreMu.Lock()
	defer s.restoreMu.Unlock()
	runID := r.ID
	if r.ImportedFrom != "" {
		return RestoreResult{}, fmt.Errorf("%w: run %s was imported from a recording: its files were changed on the machine that recorded it, not here", ErrInvalid, runID)
	}
	s.mu.Lock()
	a := s.active[runID]
	s.mu.Unlock()
	if a != nil {
		switch st := a.status(); st {
		case Running, Pausing, Queued:
			return RestoreResult{}, fmt.Errorf("%w: run %s is %s: pause it first, so that it does not change files while they are restored", ErrInvalid, runID, st)
		}
	}
	all, err := s.cfg.Store.FileChanges(ctx, runID)
	if err != nil {
		return RestoreResult{}, err
	}
	sel, undoes, err := pick(all)
	if err != nil {
		return RestoreResult{}, err
	}
	steps, conflicts := workspace.PlanRestore(recorded(all), recorded(sel))
	if len(conflicts) > 0 {
		return RestoreResult{}, &workspace.ConflictError{Conflicts: conflicts}
	}
	ws, err := workspace.Open(r.Workspace)
	if err != nil {
		return RestoreResult{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	expect := func(string, string) {}
	if a != nil {
		a.mu.Lock()
		if a.files != nil {
			expect = a.files.journal.Expect
		}
		a.mu.Unlock()
	}
	op := s.cfg.NewID(kind)
	done, rerr := ws.Restore(s.cfg.Blobs, steps, expect)
	// What was written is recorded, also when a write failed half way.
	res := RestoreResult{Op: op, Changes: make([]event.FileChangedData, len(done))}
	evs := make([]event.Event, len(done))
	for i, c := range done {
		res.Changes[i] = fileChanged(c, event.FileByUndo, op, undoes)
		evs[i] = event.New(runID, event.FileChanged, "", res.Changes[i])
	}
	if err := s.record(a, evs); err != nil {
		return res, errors.Join(rerr, fmt.Errorf("record the restore: %w", err))
	}
	return res, rerr
}

// selectChanges picks the changes a restore takes back, and says what it
// undoes for the record.
func (s *Service) selectChanges(ctx context.Context, runID string, all []store.FileChange, p RestoreParams) ([]store.FileChange, string, error) {
	var sel []store.FileChange
	switch p.Kind {
	case RestoreUndo:
		if p.Op == "" {
			return nil, "", fmt.Errorf("%w: undo needs op: the node (or undo) whose file changes to take back", ErrInvalid)
		}
		for _, c := range all {
			if c.Op == p.Op {
				sel = append(sel, c)
			}
		}
		if len(sel) == 0 {
			return nil, "", fmt.Errorf("%w: %s changed no file of run %s", ErrNotFound, p.Op, runID)
		}
		return sel, p.Op, nil
	case RestoreRevert:
		if len(all) == 0 {
			return nil, "", fmt.Errorf("%w: run %s changed no file", ErrNotFound, runID)
		}
		return all, "run", nil
	case RestoreRewind:
		if p.NodeID == "" {
			return nil, "", fmt.Errorf("%w: rewind needs node_id: the node to go back to before", ErrInvalid)
		}
		seq, err := s.cfg.Store.NodeSeq(ctx, runID, p.NodeID)
		if err != nil {
			return nil, "", err
		}
		for _, c := range all {
			if c.Seq > seq {
				sel = append(sel, c)
			}
		}
		if len(sel) == 0 {
			return nil, "", fmt.Errorf("%w: no file changed from node %s on", ErrNotFound, p.NodeID)
		}
		return sel, "from:" + p.NodeID, nil
	}
	return nil, "", fmt.Errorf("%w: restore kind %q is not one of undo, revert, rewind", ErrInvalid, p.Kind)
}

// record appends events of a run: through the run when it is active here
// (its log has one writer), else straight to the store.
func (s *Service) record(a *active, evs []event.Event) error {
	if len(evs) == 0 {
		return nil
	}
	if a != nil {
		a.mu.Lock()
		for _, ev := range evs {
			a.emitLocked(ev.Type, ev.NodeID, ev.Data)
		}
		a.mu.Unlock()
		return a.sync()
	}
	_, err := s.cfg.Store.SubmitAll(evs).Wait()
	return err
}

func recorded(cs []store.FileChange) []workspace.Recorded {
	out := make([]workspace.Recorded, len(cs))
	for i, c := range cs {
		out[i] = workspace.Recorded{Change: workspace.Change{Path: c.Path, Before: c.Before, After: c.After,
			BeforeUnknown: c.BeforeUnknown, Size: c.Size}, Op: c.Op, Seq: c.Seq}
	}
	return out
}
