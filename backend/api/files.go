package api

import (
	"net/http"

	"steward/backend/run"
	"steward/backend/workspace"
)

// FilesView, FileView and ChangeView are the answer of GET
// /runs/{id}/files, computed by package workspace (ViewFiles).
type (
	FilesView  = workspace.FilesView
	FileView   = workspace.FileView
	ChangeView = workspace.ChangeView
)

// RestoreInput says what an undo or a rewind takes back.
type RestoreInput struct {
	Op     string `json:"op,omitempty"`      // undo: the node (or earlier undo) whose changes to take back
	NodeID string `json:"node_id,omitempty"` // rewind: the node to go back to before
}

func (s *Server) files(w http.ResponseWriter, r *http.Request) error {
	view, err := s.cfg.Runs.Files(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view)
	return nil
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
