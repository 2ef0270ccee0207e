package run

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"

	"steward/backend/event"
	"steward/backend/tool"
	"steward/backend/workspace"
)

// files is an active run's view of its workspace: the journal its file
// tools report to, and the watcher that records what they did not do.
type files struct {
	journal *workspace.Journal
	watcher *workspace.Watcher
	// exec is the node of the exec tool running now, if any: what the
	// watcher sees meanwhile is that command's doing.
	exec string
	// calling is set while a tool other than a command runs: the watcher's
	// reports wait in deferred until its changes are in the journal, or its
	// own writes could pass for someone else's.
	calling  bool
	deferred []workspace.Changed
	// done is set when the run records its end: the watcher's reports
	// after that are dropped.
	done bool
}

// watchFiles gives an active run its journal, seeded with what its log
// says of its files, and starts its watcher. It returns the function that
// stops the watcher. Without Blobs (no journal configured) it does nothing.
func (s *Service) watchFiles(a *active) func() {
	if s.cfg.Blobs == nil {
		return func() {}
	}
	a.mu.Lock()
	j := workspace.NewJournal(s.cfg.Blobs)
	for p, sum := range a.st.files {
		j.Known(p, sum)
	}
	a.files = &files{journal: j}
	root := a.st.env.Workspace
	a.mu.Unlock()
	w, err := workspace.Watch(root, workspace.WatchOptions{}, func(changed []workspace.Changed) { s.observe(a, changed) })
	if err != nil {
		s.cfg.Logf("run %s: watch %s: %v (changes made outside its file tools are noticed when it next touches a file)", a.st.id, root, err)
		return func() {}
	}
	a.mu.Lock()
	a.files.watcher = w
	a.mu.Unlock()
	return func() {
		if d := w.Degraded(); d != "" {
			s.cfg.Logf("run %s: file watcher: %s", a.st.id, d)
		}
		if err := w.Close(); err != nil {
			s.cfg.Logf("run %s: close the file watcher: %v", a.st.id, err)
		}
	}
}

// observe records the changes the watcher saw that the run's file tools
// did not make: a command's (while one runs), or someone else's.
func (s *Service) observe(a *active, changed []workspace.Changed) {
	a.mu.Lock()
	f, root := a.files, a.st.env.Workspace
	if f.calling {
		f.deferred = append(f.deferred, changed...)
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	ws, err := workspace.Open(root)
	if err != nil {
		return // the workspace is gone: the next tool call will say so
	}
	var changes []workspace.Change
	for _, ch := range changed {
		sum, size, ok := s.look(ws, ch.Path)
		if !ok {
			continue
		}
		if c, ok := f.journal.Observe(ch.Path, sum, size, ch.Created); ok {
			changes = append(changes, c)
		}
	}
	if len(changes) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if f.done {
		return
	}
	source, node, op := event.FileSource(event.FileByExternal), "", s.cfg.NewID("ext")
	if f.exec != "" {
		source, node, op = event.FileByCommand, f.exec, f.exec
	}
	for _, c := range changes {
		a.emitLocked(event.FileChanged, node, fileChanged(c, source, op, ""))
	}
	a.flushLocked()
}

// look reads the content of workspace file p: its sum and size, "" when it
// does not exist. ok is false for what is not a regular file or cannot be
// read. The content is kept when it is small enough, so a later change of
// it can be undone.
func (s *Service) look(ws *workspace.Root, p string) (sum string, size int64, ok bool) {
	root, err := ws.OpenRoot()
	if err != nil {
		return "", 0, false
	}
	defer root.Close()
	fi, err := root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, true
	}
	if err != nil || !fi.Mode().IsRegular() {
		return "", 0, false
	}
	if fi.Size() <= workspace.MaxBlob {
		b, err := root.ReadFile(p)
		if err != nil {
			return "", 0, false
		}
		sum, err := s.cfg.Blobs.Put(b)
		return sum, int64(len(b)), err == nil
	}
	fh, err := root.Open(p)
	if err != nil {
		return "", 0, false
	}
	defer fh.Close()
	h := sha256.New()
	n, err := io.Copy(h, fh)
	return hex.EncodeToString(h.Sum(nil)), n, err == nil
}

func fileChanged(c workspace.Change, source event.FileSource, op, undoes string) event.FileChangedData {
	return event.FileChangedData{Path: c.Path, Before: c.Before, After: c.After, BeforeUnknown: c.BeforeUnknown,
		Size: c.Size, Source: source, Op: op, Undoes: undoes}
}

// toolFiles is the tool.Files of the call of node: the run's journal, or
// nil when there is none.
func (a *active) toolFiles() tool.Files {
	if a.files == nil {
		return nil
	}
	return a.files.journal
}

// recordToolChanges records the changes the call of node made through its
// file tools; mu must be held.
func (a *active) recordToolChangesLocked(node string) {
	if a.files == nil {
		return
	}
	for _, c := range a.files.journal.Take() {
		a.emitLocked(event.FileChanged, node, fileChanged(c, event.FileByTool, node, ""))
	}
}

// Restore kinds.
const (
	RestoreUndo   = "undo"   // the changes of one op: a tool node, or an earlier undo
	RestoreRevert = "revert" // every change of the run
	RestoreRewind = "rewind" // the changes of a node and of everything after it
)

// RestoreParams say what to take back.
type RestoreParams struct {
	Kind string
	// Op is the op to undo (a tool node id, or the id of an undo, revert or
	// rewind); NodeID the node to rewind to before.
	Op, NodeID string
}

// RestoreResult is what a restore did: its op (itself undoable) and the
// changes it made.
type RestoreResult struct {
	Op      string                  `json:"op"`
	Changes []event.FileChangedData `json:"changes"`
}
