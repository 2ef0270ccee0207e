package api

import (
	"net/http"

	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/workspace"
)

// FilesView is a run's changed files with their diffs.
type FilesView struct {
	Files []FileView `json:"files"`
}

// FileView is one file the run changed (or saw changed), with the diff of
// the whole run (from before its first change to after its last) and each
// change.
type FileView struct {
	Path string `json:"path"`
	// Status is added, modified, deleted or unchanged (changed and changed
	// back), comparing before the run's first change with now.
	Status string `json:"status"`
	// External is set when a change came from outside the run's file tools:
	// a command of the run, a person, another program.
	External bool         `json:"external"`
	Diff     string       `json:"diff,omitempty"`
	DiffNote string       `json:"diff_note,omitempty"`
	Changes  []ChangeView `json:"changes"`
}

// ChangeView is one change of a file, with its own diff.
type ChangeView struct {
	Seq           int64  `json:"seq"`
	NodeID        string `json:"node_id,omitempty"`
	Op            string `json:"op"`
	Source        string `json:"source"` // tool, command, external, undo
	Undoes        string `json:"undoes,omitempty"`
	Before        string `json:"before,omitempty"`
	After         string `json:"after,omitempty"`
	BeforeUnknown bool   `json:"before_unknown,omitempty"`
	Size          int64  `json:"size"`
	CreatedAt     int64  `json:"created_at"`
	Diff          string `json:"diff,omitempty"`
	DiffNote      string `json:"diff_note,omitempty"`
}

// RestoreInput says what an undo or a rewind takes back.
type RestoreInput struct {
	Op     string `json:"op,omitempty"`      // undo: the node (or earlier undo) whose changes to take back
	NodeID string `json:"node_id,omitempty"` // rewind: the node to go back to before
}

func (s *Server) files(w http.ResponseWriter, r *http.Request) error {
	changes, err := s.cfg.Runs.FileChanges(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.filesView(changes))
	return nil
}

func (s *Server) filesView(changes []store.FileChange) FilesView {
	byPath := map[string]*FileView{}
	first := map[string]store.FileChange{}
	var order []string
	for _, c := range changes {
		f := byPath[c.Path]
		if f == nil {
			f = &FileView{Path: c.Path}
			byPath[c.Path] = f
			first[c.Path] = c
			order = append(order, c.Path)
		}
		cv := ChangeView{Seq: c.Seq, NodeID: c.NodeID, Op: c.Op, Source: c.Source, Undoes: c.Undoes, Before: c.Before,
			After: c.After, BeforeUnknown: c.BeforeUnknown, Size: c.Size, CreatedAt: c.CreatedAt}
		cv.Diff, cv.DiffNote = s.diff(c.Path, c.Before, c.After, c.BeforeUnknown)
		f.Changes = append(f.Changes, cv)
		if c.Source == "command" || c.Source == "external" {
			f.External = true
		}
	}
	out := FilesView{Files: make([]FileView, 0, len(order))}
	for _, p := range order {
		f, c0 := byPath[p], first[p]
		last := f.Changes[len(f.Changes)-1]
		switch {
		case c0.BeforeUnknown:
			f.Status = "modified"
		case c0.Before == "" && last.After != "":
			f.Status = "added"
		case c0.Before != "" && last.After == "":
			f.Status = "deleted"
		case c0.Before == last.After:
			f.Status = "unchanged"
		default:
			f.Status = "modified"
		}
		f.Diff, f.DiffNote = s.diff(p, c0.Before, last.After, c0.BeforeUnknown)
		out.Files = append(out.Files, *f)
	}
	return out
}

// diff is the diff of a file between two kept contents ("" sums: absent).
func (s *Server) diff(path, before, after string, beforeUnknown bool) (string, string) {
	if s.cfg.Blobs == nil {
		return "", ""
	}
	if beforeUnknown {
		return "", "what the file held before is not known: it changed before the run had seen it"
	}
	get := func(sum string) ([]byte, bool) {
		if sum == "" {
			return nil, true
		}
		b, err := s.cfg.Blobs.Get(sum)
		if err != nil {
			return nil, false
		}
		if b == nil {
			b = []byte{}
		}
		return b, true
	}
	a, ok1 := get(before)
	b, ok2 := get(after)
	if !ok1 || !ok2 {
		return "", "no diff: the content was not kept (larger than 16 MiB)"
	}
	return workspace.Diff(path, a, b)
}

func (s *Server) restore(kind string) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in RestoreInput
		if r.ContentLength != 0 {
			if err := decode(w, r, &in); err != nil {
				return err
			}
		}
		res, err := s.cfg.Runs.Restore(r.Context(), r.PathValue("id"), run.RestoreParams{Kind: kind, Op: in.Op, NodeID: in.NodeID})
		if err != nil { // a *workspace.ConflictError answers 409 with the files (classify)
			return err
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}
