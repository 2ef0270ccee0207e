package api

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"steward/backend/fault"
	"steward/backend/tool"
)

// Frames gives the latest picture of a run's live browser, and a video of
// its recording so far.
type Frames interface {
	LatestFrame(runID string) (jpeg []byte, at time.Time, ok bool)
	RecordingSoFar(ctx context.Context, runID, dir string) (tool.Artifact, error)
}

// artifactTypes are the only files served from a run's artifacts: pictures
// and videos. Anything else a run left there (an HTML page it saved, say)
// is never served from Steward's origin, where a page could use the
// session cookie.
var artifactTypes = map[string]string{
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".mp4":  "video/mp4",
	".webm": "video/webm",
}

func (s *Server) artifact(w http.ResponseWriter, r *http.Request) error {
	id, name := r.PathValue("id"), r.PathValue("name")
	if _, err := s.cfg.Store.GetRun(r.Context(), id); err != nil {
		return err
	}
	if s.cfg.Artifacts == "" {
		return errorf(http.StatusNotFound, CodeNotFound, "this server keeps no artifacts")
	}
	clean := path.Clean("/" + name)[1:]
	if name == "" || clean != name || strings.Contains(name, `\`) {
		return errorf(http.StatusBadRequest, CodeInvalid, "artifact name "+strconv.Quote(name)+" is not a plain relative path")
	}
	typ, ok := artifactTypes[strings.ToLower(path.Ext(name))]
	if !ok {
		return errorf(http.StatusNotFound, CodeNotFound, "artifact "+strconv.Quote(name)+" is not a picture or a video")
	}
	f, err := os.Open(filepath.Join(s.cfg.Artifacts, filepath.Base(id), filepath.FromSlash(clean)))
	if err != nil {
		return errorf(http.StatusNotFound, CodeNotFound, "run "+id+" has no artifact "+strconv.Quote(name))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return errorf(http.StatusNotFound, CodeNotFound, "run "+id+" has no artifact "+strconv.Quote(name))
	}
	w.Header().Set("Content-Type", typ)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'")
	w.Header().Set("Cache-Control", "private, max-age=3600") // written once, never changed
	http.ServeContent(w, r, "", st.ModTime(), f)             // ranges, for seeking in a video
	return nil
}

func (s *Server) browserFrame(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, err := s.cfg.Store.GetRun(r.Context(), id); err != nil {
		return err
	}
	if s.cfg.Frames == nil {
		return errorf(http.StatusNotFound, CodeNotFound, "this server has no browser")
	}
	jpeg, at, ok := s.cfg.Frames.LatestFrame(id)
	if !ok {
		return errorf(http.StatusNotFound, CodeNotFound, "run "+id+" has no live browser picture")
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Time", strconv.FormatInt(at.UnixMilli(), 10))
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(jpeg))
	return nil
}

// recordingSoFar makes a video of a live run's browser recording as it is
// now; the run's own video is still made when it ends.
func (s *Server) recordingSoFar(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, err := s.cfg.Store.GetRun(r.Context(), id); err != nil {
		return err
	}
	if s.cfg.Frames == nil || s.cfg.Artifacts == "" {
		return errorf(http.StatusNotFound, CodeNotFound, "this server has no browser")
	}
	art, err := s.cfg.Frames.RecordingSoFar(r.Context(), id, filepath.Join(s.cfg.Artifacts, filepath.Base(id)))
	if err != nil {
		return fault.Errorf(fault.Conflict, "no video of run %s so far: %w", id, err)
	}
	writeJSON(w, http.StatusOK, art)
	return nil
}
