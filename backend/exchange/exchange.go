// Package exchange takes runs out of Steward and back in: it exports a run
// as a recording (.steward), a self-contained web page, OpenTelemetry
// traces or its browser video, and imports a recording as a read-only run.
//
// Every format is made from the same redacted recording: the run's log and
// files go through the redactor once, when the bundle is written, and the
// web page and the traces are read back from that bundle. What leaves the
// machine has therefore always been through the same checks.
//
// An imported recording is someone else's content: it is checked whole
// (recording.Read) and kept as history. Nothing it records becomes a
// setting here; a fork or a replay of it runs one of this machine's agents
// in a folder the person chooses (run.Origin).
package exchange

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"steward/backend/event"
	"steward/backend/fault"
	"steward/backend/recording"
	"steward/backend/recording/html"
	"steward/backend/recording/otlp"
	"steward/backend/redact"
	"steward/backend/store"
)

// Formats of an export.
const (
	FormatSteward = "steward" // the recording: a zip of the log, files and artifacts
	FormatHTML    = "html"    // one web page that replays the run offline
	FormatOTLP    = "otlp"    // OTLP/JSON traces (OpenTelemetry GenAI conventions)
	FormatVideo   = "video"   // the browser recording
)

// Format is an export format (Formats lists them).
type Format string

// Formats lists the export formats.
var Formats = []string{FormatSteward, FormatHTML, FormatOTLP, FormatVideo}

// ErrInvalid is wrapped by an export or import refused for what was asked
// (an unknown format, a run with no video) or given (a damaged recording).
var ErrInvalid = fault.New(fault.Invalid, "invalid")

// ErrNotFound is wrapped when the run does not exist.
var ErrNotFound = store.ErrNotFound

// Store is what the exchange reads and writes of the run store.
type Store interface {
	GetRun(ctx context.Context, id string) (store.Run, error)
	Events(ctx context.Context, runID string, after int64, limit int) ([]event.Event, error)
	ImportRun(ctx context.Context, evs []event.Event, importedFrom string) ([]event.Event, error)
}

// Blobs keeps file contents by their SHA-256.
type Blobs interface {
	Get(sum string) ([]byte, error)
	Put(content []byte) (string, error)
}

// Config is what a Service needs.
type Config struct {
	Store Store
	Blobs Blobs
	// Artifacts is the folder of the runs' artifacts, one folder per run.
	Artifacts string
	// Version is this Steward's, written into recordings.
	Version string
	// Secrets returns the values to remove from everything exported (the
	// provider keys in force, the server's token), at the time of export.
	Secrets func() []string
	// Learned returns values found as secrets since the process started
	// (redact.Live.Learned), removed too: the text that marked them is
	// redacted in the log already, so the export's own learning cannot
	// find them again. Nil is none.
	Learned func() []string
	// NewID returns a fresh id with prefix (for imported runs).
	NewID func(prefix string) string
	// Player returns the built web page that replays a recording.
	Player func() ([]byte, error)
	Now    func() time.Time
}

// Service exports and imports runs.
type Service struct{ cfg Config }

// New returns a Service.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Secrets == nil {
		cfg.Secrets = func() []string { return nil }
	}
	if cfg.Learned == nil {
		cfg.Learned = func() []string { return nil }
	}
	return &Service{cfg: cfg}
}

// Export describes what an export wrote.
type Export struct {
	Filename string // a file name for it: the run id and the format's extension
	Mime     string
	Manifest recording.Manifest
}

// Export writes run runID in format to w. Nothing is written to w when the
// export fails before its first byte (an unknown run or format, no video);
// the web page and the traces are made in memory first for the same reason.
func (s *Service) Export(ctx context.Context, runID, format string, w io.Writer) (Export, error) {
	if !slices.Contains(Formats, format) {
		return Export{}, fmt.Errorf("%w: format %q is not one of %s", ErrInvalid, format, strings.Join(Formats, ", "))
	}
	r, err := s.cfg.Store.GetRun(ctx, runID)
	if err != nil {
		return Export{}, err
	}
	defer release(r.LastSeq)
	if format == FormatVideo {
		return s.exportVideo(ctx, runID, w)
	}
	// The recording goes to a temporary file: it may hold a video, and the
	// other formats read it back from there.
	f, err := os.CreateTemp("", "steward-export-*.steward")
	if err != nil {
		return Export{}, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	m, err := recording.Export(ctx, s.source(), runID, f, recording.ExportOptions{
		Steward: s.cfg.Version, Redactor: redact.New(s.cfg.Secrets()...).WithLearned(s.cfg.Learned()), Now: s.cfg.Now})
	if err != nil {
		return Export{}, err
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return Export{}, err
	}
	out := Export{Filename: runID, Manifest: m}
	switch format {
	case FormatSteward:
		out.Filename += ".steward"
		out.Mime = "application/vnd.steward.recording+zip"
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return Export{}, err
		}
		_, err = io.Copy(w, f)
		return out, err
	}
	b, err := recording.Read(f, size, recording.DefaultLimits())
	if err != nil {
		return Export{}, fmt.Errorf("export run %s: read back its recording: %w", runID, err)
	}
	var page bytes.Buffer
	if format == FormatOTLP {
		body, err := otlp.Traces(runID, b.Events, otlp.Options{ServiceName: "steward", StewardVersion: s.cfg.Version})
		if err != nil {
			return Export{}, fmt.Errorf("export run %s as traces: %w", runID, err)
		}
		out.Filename += ".otlp.json"
		out.Mime = "application/json"
		_, err = w.Write(body)
		return out, err
	}
	if s.cfg.Player == nil {
		return Export{}, fmt.Errorf("%w: this Steward was built without the web page player", ErrInvalid)
	}
	player, err := s.cfg.Player()
	if err != nil {
		return Export{}, err
	}
	data := html.Data{Manifest: b.Manifest, Events: b.Events, Blobs: b.Blobs, Artifacts: map[string]html.Artifact{}}
	sizes := map[string]int64{}
	for _, p := range b.Manifest.Parts {
		sizes[p.Name] = p.Size
	}
	for _, name := range b.Artifacts {
		// A video too large for the page is left out with a note: it is
		// not read into memory to find that out.
		if mime := mimeOf(name); strings.HasPrefix(mime, "video/") && sizes["artifacts/"+name] > html.DefaultMaxVideoBytes {
			data.Artifacts[name] = html.Artifact{Mime: mime, Size: sizes["artifacts/"+name]}
			continue
		}
		rc, err := b.OpenArtifact(name)
		if err != nil {
			return Export{}, err
		}
		content, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return Export{}, err
		}
		data.Artifacts[name] = html.Artifact{Mime: mimeOf(name), Data: content}
	}
	if err := html.Write(&page, player, data, html.Options{}); err != nil {
		return Export{}, fmt.Errorf("export run %s as a web page: %w", runID, err)
	}
	out.Filename += ".html"
	out.Mime = "text/html; charset=utf-8"
	_, err = w.Write(page.Bytes())
	return out, err
}

// exportVideo copies the run's browser recording.
func (s *Service) exportVideo(ctx context.Context, runID string, w io.Writer) (Export, error) {
	evs, err := s.events(ctx, runID)
	if err != nil {
		return Export{}, err
	}
	name := ""
	for _, ev := range evs {
		var d event.ArtifactCreatedData
		if ev.Type == event.ArtifactCreated && ev.Decode(&d) == nil && d.Kind == "video" {
			name = d.Name
		}
	}
	if name == "" {
		return Export{}, fmt.Errorf("%w: run %s has no video: only a run that used the browser has one (made when the run ends, with ffmpeg)", ErrInvalid, runID)
	}
	f, err := os.Open(filepath.Join(s.cfg.Artifacts, runID, filepath.FromSlash(name)))
	if err != nil {
		return Export{}, fmt.Errorf("%w: the video of run %s is gone from %s", ErrInvalid, runID, s.cfg.Artifacts)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return Export{}, err
	}
	return Export{Filename: runID + filepath.Ext(name), Mime: mimeOf(name)}, nil
}

// Import reads a recording, checks all of it, and adds its run as a new,
// read-only run. A recording refused for what it holds wraps ErrInvalid and
// nothing is written.
func (s *Service) Import(ctx context.Context, r io.ReaderAt, size int64) (store.Run, error) {
	b, err := recording.Read(r, size, recording.DefaultLimits())
	if err != nil {
		if errors.Is(err, recording.ErrInvalid) {
			return store.Run{}, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return store.Run{}, err
	}
	defer release(int64(len(b.Events)))
	id := s.cfg.NewID("run")
	evs := b.Events // the bundle's own: renamed in place, not copied
	for i := range evs {
		evs[i].RunID = id
	}
	// The contents first: once the run exists its files may be asked for.
	// Blobs are named by their content: one left by a failed import harms
	// nothing.
	for sum, content := range b.Blobs {
		got, err := s.cfg.Blobs.Put(content)
		if err != nil {
			return store.Run{}, fmt.Errorf("import: keep a file content: %w", err)
		}
		if got != sum {
			return store.Run{}, fmt.Errorf("%w: blob %s holds content whose SHA-256 is %s", ErrInvalid, sum, got)
		}
	}
	dir := ""
	if len(b.Artifacts) > 0 && s.cfg.Artifacts != "" {
		dir = filepath.Join(s.cfg.Artifacts, id)
		if err := b.WriteArtifacts(dir); err != nil {
			os.RemoveAll(dir)
			return store.Run{}, fmt.Errorf("import: %w", err)
		}
	}
	if _, err := s.cfg.Store.ImportRun(ctx, evs, b.Manifest.Run.ID); err != nil {
		if dir != "" {
			os.RemoveAll(dir)
		}
		return store.Run{}, fmt.Errorf("import: %w", err)
	}
	return s.cfg.Store.GetRun(ctx, id)
}

// events reads the whole log of a run, into a slice sized for it once (a
// slice grown by appending 100,000 events copies them some 17 times).
func (s *Service) events(ctx context.Context, runID string) ([]event.Event, error) {
	r, err := s.cfg.Store.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make([]event.Event, 0, r.LastSeq)
	after := int64(0)
	for {
		page, err := s.cfg.Store.Events(ctx, runID, after, 5000)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < 5000 {
			return out, nil
		}
		after = page[len(page)-1].Seq
	}
}

// releaseAbove is the length of log past which an export or import hands
// its memory back to the system when it is done. Go returns freed memory
// on its own only after its next collection, which an idle server may not
// run for minutes: six exports and imports of a 100,000-event run through
// the server left its RSS at twice idle (76 to 151 MiB) more than two
// minutes later. A collection then costs a few milliseconds, against
// hundreds for the exchange itself; below some thousands of events there
// is little to hand back.
const releaseAbove = 10_000

// release returns freed memory to the system after the exchange of a log
// of n events, when that log was long.
func release(n int64) {
	if n > releaseAbove {
		debug.FreeOSMemory()
	}
}

func mimeOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".mp4":
		return "video/mp4"
	case ".webm":
		return "video/webm"
	}
	return "application/octet-stream"
}
