package run

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"steward/backend/event"
	"steward/backend/store"
	"steward/backend/workspace"
)

// CodeFilesConflict is the rejection code of a fork with files "restore"
// whose restore would overwrite a change made since the run left a file
// (or could not put one back): the message lists the files, and nothing
// was changed, the fork included.
const CodeFilesConflict = "files_conflict"

// errNothingToRestore: no file of the run changed after the node.
var errNothingToRestore = errors.New("no file changed after the node")

// checkForkFiles refuses a files choice that is not one of
// event.ForkFilesChoices.
func checkForkFiles(c Command) error {
	if c.Files != "" && !slices.Contains(event.ForkFilesChoices, c.Files) {
		return fmt.Errorf("%w: files %q is not one of %v", ErrInvalid, c.Files, event.ForkFilesChoices)
	}
	return nil
}

// forkFilesParams are what forkFiles needs of the fork being made.
type forkFilesParams struct {
	node string
	// after is the seq of the node's end: the source's changes after it
	// are what a restore takes back.
	after int64
	// fork is the new run's id; ws the folder it would work in.
	fork, ws string
	// ownFolder says the fork works in the source run's folder.
	ownFolder bool
}

// forkFiles carries out a fork's choice of files before the fork is made,
// and returns the fork's folder and the record of what was done. A
// rejection means nothing was done. "restore" takes back, in the source
// run's folder and as one op of its journal (undone there like any other),
// every change the source recorded after the node, all or nothing with
// Restore's conflict check; "copy" copies the folder to a sibling,
// <folder>-fork-<id>, which the fork works in; "keep" (the default) does
// nothing.
func (s *Service) forkFiles(ctx context.Context, r store.Run, choice event.ForkFilesChoice, p forkFilesParams) (string, *event.ForkFiles, *CommandResult) {
	switch choice {
	case event.ForkRestore:
		if !p.ownFolder {
			res := rejected(CodeInvalidState, "files restore puts back the files of run %s's own folder; this fork works in another (%s): keep or copy its files instead", r.ID, p.ws)
			return "", nil, &res
		}
		rr, err := s.restoreLocked(ctx, r, "restore", func(all []store.FileChange) ([]store.FileChange, string, error) {
			var sel []store.FileChange
			for _, c := range all {
				if c.Seq > p.after {
					sel = append(sel, c)
				}
			}
			if len(sel) == 0 {
				return nil, "", errNothingToRestore
			}
			return sel, "after:" + p.node, nil
		})
		var conflict *workspace.ConflictError
		switch {
		case errors.Is(err, errNothingToRestore), err == nil && len(rr.Changes) == 0:
			// Every file already holds what it held at the node.
			return p.ws, &event.ForkFiles{Choice: choice}, nil
		case errors.As(err, &conflict):
			res := rejected(CodeFilesConflict, "the files cannot be put back as they were at node %s, and no fork was made: %v", p.node, err)
			return "", nil, &res
		case err != nil && len(rr.Changes) == 0:
			res := rejected(CodeInvalidState, "put the files back as they were at node %s: %v", p.node, err)
			return "", nil, &res
		case err != nil:
			// Some files were written, and recorded as op rr.Op: the fork
			// goes on, saying what became of them.
			s.cfg.Logf("run %s: fork %s: restore stopped half way (op %s, undoable): %v", r.ID, p.fork, rr.Op, err)
		}
		return p.ws, &event.ForkFiles{Choice: choice, Op: rr.Op, Restored: len(rr.Changes)}, nil
	case event.ForkCopy:
		ws, err := workspace.Open(p.ws)
		if err != nil {
			res := rejected(CodeInvalidState, "copy the folder: %v", err)
			return "", nil, &res
		}
		dst := ws.Path() + "-fork-" + p.fork
		st, err := workspace.CopyTree(ws.Path(), dst, workspace.CopyLimits{})
		if err != nil {
			res := rejected(CodeInvalidState, "copy the folder for the fork, and no fork was made: %v", err)
			return "", nil, &res
		}
		return dst, &event.ForkFiles{Choice: choice, From: ws.Path(), Copied: st.Copied, Skipped: st.Skipped}, nil
	}
	return p.ws, &event.ForkFiles{Choice: event.ForkKeep}, nil
}

// sameFolder says whether a and b name the same folder.
func sameFolder(a, b string) bool {
	ra, err1 := workspace.Open(a)
	rb, err2 := workspace.Open(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra.Path() == rb.Path()
}
