package api

import (
	"net/http"
	"os"
	"path/filepath"

	"steward/backend/fault"
)

// FolderInput asks for a folder, starting the dialog at Start.
type FolderInput struct {
	Title string `json:"title,omitempty"`
	Start string `json:"start,omitempty"`
}

// FolderChoice is the folder chosen, or Cancelled.
type FolderChoice struct {
	Path      string `json:"path,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
}

// pickFolder opens the desktop window's native folder dialog and waits for
// the person's choice.
func (s *Server) pickFolder(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Desktop == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "native dialogs exist only in the desktop window")
	}
	var in FolderInput
	if r.ContentLength != 0 {
		if err := decode(w, r, &in); err != nil {
			return err
		}
	}
	if in.Title == "" {
		in.Title = "Choose the workspace folder"
	}
	if in.Start != "" {
		// A start the dialog cannot open falls back to the home folder.
		if fi, err := os.Stat(in.Start); err != nil || !fi.IsDir() || !filepath.IsAbs(in.Start) {
			in.Start = ""
		}
	}
	path, err := s.cfg.Desktop.PickFolder(r.Context(), in.Title, in.Start)
	if err != nil {
		return fault.Errorf(fault.Conflict, "the folder dialog could not open: %w", err)
	}
	writeJSON(w, http.StatusOK, FolderChoice{Path: path, Cancelled: path == ""})
	return nil
}
