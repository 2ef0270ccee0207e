package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"steward/backend/fault"
)

// Recorded is a change as the journal holds it, with the operation it
// belongs to (the tool node, or an undo) and its place in the log.
type Recorded struct {
	Change
	Op  string
	Seq int64
}

// Conflict says why one file cannot be restored.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ConflictError lists every file that stops a restore; nothing was written.
type ConflictError struct{ Conflicts []Conflict }

// Is makes a ConflictError a fault.Conflict: the request is right, the
// files have moved on.
func (e *ConflictError) Is(target error) bool { return target == fault.Conflict }

func (e *ConflictError) Error() string {
	parts := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		parts[i] = c.Path + ": " + c.Reason
	}
	return "nothing was changed: " + strings.Join(parts, "; ")
}

// Step restores one file: it must hold From now ("" absent), and gets To
// ("" removes it).
type Step struct {
	Path, From, To string
}

// PlanRestore plans taking back the changes sel, a part of the journal all
// (both in the order of the log): each file touched by sel returns to what
// it held before sel's first change of it. A file that a later change (not
// in sel) touched again cannot be restored without losing that change, and
// a file whose earlier content is unknown cannot be restored at all: both
// are conflicts.
func PlanRestore(all, sel []Recorded) ([]Step, []Conflict) {
	latest := map[string]Recorded{}
	for _, c := range all {
		latest[c.Path] = c
	}
	first, last := map[string]Recorded{}, map[string]Recorded{}
	var order []string
	for _, c := range sel {
		if _, ok := first[c.Path]; !ok {
			first[c.Path] = c
			order = append(order, c.Path)
		}
		last[c.Path] = c
	}
	var steps []Step
	var conflicts []Conflict
	for _, p := range order {
		f, l := first[p], last[p]
		switch {
		case latest[p].Seq != l.Seq:
			conflicts = append(conflicts, Conflict{p, fmt.Sprintf("changed again later (%s): take that back first", describeOp(latest[p].Op))})
		case f.BeforeUnknown:
			conflicts = append(conflicts, Conflict{p, fmt.Sprintf("what it held before %s is not known: the run had not seen it before a command or someone else changed it", describeOp(f.Op))})
		case f.Before != l.After:
			steps = append(steps, Step{Path: p, From: l.After, To: f.Before})
		}
	}
	return steps, conflicts
}

func describeOp(op string) string {
	if strings.HasPrefix(op, "n") {
		return "by node " + op
	}
	return "by " + op
}

// Restore carries out steps in the workspace, all or nothing: first it
// checks that every file holds what the journal says it should (else a
// ConflictError: someone changed it since, and a restore would silently
// lose that) and that every content to put back is kept; then it writes.
// expect is told of each write just before it happens (the run's journal,
// so its watcher does not take the write for someone else's). It returns
// the changes made.
func (r *Root) Restore(blobs *Blobs, steps []Step, expect func(path, sum string)) ([]Change, error) {
	root, err := r.OpenRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var conflicts []Conflict
	contents := make([][]byte, len(steps))
	for i, s := range steps {
		cur, err := root.ReadFile(s.Path)
		now := ""
		switch {
		case err == nil:
			now = Sum(cur)
		case !errors.Is(err, fs.ErrNotExist):
			conflicts = append(conflicts, Conflict{s.Path, "cannot be read: " + strings.TrimPrefix(err.Error(), "openat ")})
			continue
		}
		if now != s.From {
			why := "changed on disk since the run left it (by a person or a program): it is not overwritten"
			if now == "" {
				why = "deleted on disk since the run left it: it is not recreated"
			}
			conflicts = append(conflicts, Conflict{s.Path, why})
			continue
		}
		if s.To != "" {
			if contents[i], err = blobs.Get(s.To); err != nil {
				conflicts = append(conflicts, Conflict{s.Path, "its earlier content was not kept (larger than 16 MiB)"})
			}
		}
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{conflicts}
	}
	var done []Change
	for i, s := range steps {
		expect(s.Path, s.To)
		if s.To == "" {
			err = root.Remove(s.Path)
		} else {
			err = writeFile(root, s.Path, contents[i])
		}
		if err != nil {
			return done, fmt.Errorf("restore %s: %w", s.Path, err)
		}
		done = append(done, Change{Path: s.Path, Before: s.From, After: s.To, Size: int64(len(contents[i]))})
	}
	return done, nil
}

// writeFile replaces name with data through Replace, keeping the mode of a
// file being replaced; a new file and its folders are created.
func writeFile(root *os.Root, name string, data []byte) error {
	mode, exists := fs.FileMode(0o644), false
	if fi, err := root.Stat(name); err == nil {
		mode, exists = fi.Mode().Perm(), true
	}
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return Replace(root, name, data, mode, exists)
}
