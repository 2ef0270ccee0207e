package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"steward/backend/exchange"
	"steward/backend/fault"
	"steward/backend/store"
)

// Exchange exports runs and imports recordings.
type Exchange interface {
	Export(ctx context.Context, runID, format string, w io.Writer) (exchange.Export, error)
	Import(ctx context.Context, r io.ReaderAt, size int64) (store.Run, error)
}

// maxImport bounds an uploaded recording.
const maxImport = 2 << 30

// ExportSaveInput asks the desktop window to save an export.
type ExportSaveInput struct {
	Format exchange.Format `json:"format"`
}

// ExportSaved is where an export was saved, or Cancelled.
type ExportSaved struct {
	Path      string `json:"path,omitempty"`
	Bytes     int64  `json:"bytes,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
}

func (s *Server) checkExchange(format string) error {
	if s.cfg.Exchange == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "this server cannot export or import runs")
	}
	if format != "" && !slices.Contains(exchange.Formats, format) {
		return errorf(http.StatusBadRequest, CodeInvalid, "format "+strconv.Quote(format)+" is not one of "+strings.Join(exchange.Formats, ", "))
	}
	return nil
}

// exportRun answers the export as a download. It is made whole before the
// first byte is sent, so a failure is an error answer, not a cut file.
func (s *Server) exportRun(w http.ResponseWriter, r *http.Request) error {
	format := qExportFormat.get(r) // checkExchange checks it, as it does a saved export's
	if format == "" {
		format = exchange.FormatSteward
	}
	if err := s.checkExchange(format); err != nil {
		return err
	}
	var buf bytes.Buffer
	ex, err := s.cfg.Exchange.Export(r.Context(), r.PathValue("id"), format, &buf)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", ex.Mime)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": ex.Filename}))
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// The web page export is a download, never a page of this origin.
	w.Header().Set("Content-Security-Policy", "sandbox")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// saveExport asks where to save in the desktop window's native dialog and
// writes the export there.
func (s *Server) saveExport(w http.ResponseWriter, r *http.Request) error {
	var in ExportSaveInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if in.Format == "" {
		in.Format = exchange.FormatSteward
	}
	if err := s.checkExchange(string(in.Format)); err != nil {
		return err
	}
	if s.cfg.Desktop == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "native dialogs exist only in the desktop window; download the export instead")
	}
	// Made first: a run that cannot be exported asks nobody where to save.
	var buf bytes.Buffer
	ex, err := s.cfg.Exchange.Export(r.Context(), r.PathValue("id"), string(in.Format), &buf)
	if err != nil {
		return err
	}
	path, err := s.cfg.Desktop.SaveFile(r.Context(), "Save the export", ex.Filename)
	if err != nil {
		return fault.Errorf(fault.Conflict, "the save dialog could not open: %w", err)
	}
	if path == "" {
		writeJSON(w, http.StatusOK, ExportSaved{Cancelled: true})
		return nil
	}
	if err := writeFileAtomic(path, buf.Bytes()); err != nil {
		return fault.Errorf(fault.Conflict, "could not save the export: %w", err)
	}
	writeJSON(w, http.StatusOK, ExportSaved{Path: path, Bytes: int64(buf.Len())})
	return nil
}

// importRun takes a recording as the request body (up to 2 GiB), kept in a
// temporary file while it is checked.
func (s *Server) importRun(w http.ResponseWriter, r *http.Request) error {
	if err := s.checkExchange(""); err != nil {
		return err
	}
	f, err := os.CreateTemp("", "steward-import-*.steward")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	n, err := io.Copy(f, http.MaxBytesReader(w, r.Body, maxImport))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "a recording can be at most 2 GiB")
	case err != nil:
		return errorf(http.StatusBadRequest, CodeInvalid, "could not read the recording: "+err.Error())
	case n == 0:
		return errorf(http.StatusBadRequest, CodeInvalid, "the request holds no recording: send the .steward file as the body")
	}
	run, err := s.cfg.Exchange.Import(r.Context(), f, n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wireRun(run))
	return nil
}

// writeFileAtomic writes b to path through a temporary file beside it.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".steward-export-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
