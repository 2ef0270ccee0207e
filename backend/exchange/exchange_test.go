package exchange_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/store"
	"steward/backend/workspace"
)

// env is an exchange over a real store, blobs and artifacts folder, with a
// run whose file change and screenshot it can export.
type env struct {
	st   *store.Store
	ex   *exchange.Service
	arts string
	run  string
}

const secret = "sk-test-exchange-secret-0123456789"

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "steward.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	blobs, err := workspace.NewBlobs(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	e := &env{st: st, arts: filepath.Join(dir, "artifacts"), run: "run_src"}
	e.ex = exchange.New(exchange.Config{Store: st, Blobs: blobs, Artifacts: e.arts, Version: "test",
		NewID:   func(p string) string { return fmt.Sprintf("%s_%d", p, n.Add(1)) },
		Secrets: func() []string { return []string{secret} },
		Player: func() ([]byte, error) {
			return []byte("<!doctype html><html><head><title>player</title></head><body></body></html>"), nil
		},
		Now: func() time.Time { return time.UnixMilli(1_800_000_000_000) }})

	before, _ := blobs.Put([]byte("one\n"))
	after, _ := blobs.Put([]byte("one\ntwo " + secret + "\n"))
	png := []byte("\x89PNG\r\n\x1a\nnot really a picture")
	if err := os.MkdirAll(filepath.Join(e.arts, e.run, "shots"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.arts, e.run, "shots", "n3.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	evs := []event.Event{
		event.New(e.run, event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{ID: "ag", Name: "writer", Provider: "script"},
			Instructions: "write with key " + secret, Workspace: "/ws", Mode: "auto", MaxSteps: 5}),
		event.New(e.run, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "writer"}),
		event.New(e.run, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", Label: "model call 1"}),
		event.New(e.run, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded, Text: "writing"}),
		event.New(e.run, event.NodeStarted, "n3", event.NodeStartedData{Kind: event.KindTool, Parent: "n2", Label: "write_file", Tool: "write_file"}),
		event.New(e.run, event.FileChanged, "n3", event.FileChangedData{Path: "a.txt", Before: before, After: after, Size: 10, Source: event.FileByTool, Op: "n3"}),
		event.New(e.run, event.ArtifactCreated, "n3", event.ArtifactCreatedData{Name: "shots/n3.png", Kind: "screenshot", Mime: "image/png", Size: int64(len(png))}),
		event.New(e.run, event.NodeFinished, "n3", event.NodeFinishedData{Status: event.NodeSucceeded, Output: "wrote a.txt"}),
		event.New(e.run, event.RunStatus, "", event.RunStatusData{Status: "completed"}),
	}
	for _, ev := range evs {
		if _, err := st.Append(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	var buf bytes.Buffer
	ex, err := e.ex.Export(ctx, e.run, exchange.FormatSteward, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Filename != "run_src.steward" || len(ex.Manifest.Redactions) == 0 || bytes.Contains(buf.Bytes(), []byte(secret)) {
		t.Fatalf("export = %+v, %d bytes, secret inside: %v", ex, buf.Len(), bytes.Contains(buf.Bytes(), []byte(secret)))
	}
	r, err := e.ex.Import(ctx, bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if r.ID == e.run || r.ImportedFrom != e.run || r.Status != "completed" || r.LastSeq != 9 {
		t.Fatalf("imported run = %+v", r)
	}
	orig, _ := e.st.Events(ctx, e.run, 0, 100)
	got, _ := e.st.Events(ctx, r.ID, 0, 100)
	for i := range orig {
		o, g := orig[i], got[i]
		if g.Seq != o.Seq || g.Type != o.Type || g.NodeID != o.NodeID || g.TS != o.TS {
			t.Errorf("event %d: imported %+v, recorded %+v", i, g, o)
		}
		if !strings.Contains(string(o.Data), secret) && o.Type != event.FileChanged && string(g.Data) != string(o.Data) {
			t.Errorf("event %d data: imported %s, recorded %s", i, g.Data, o.Data)
		}
	}
	// The screenshot came along, byte for byte.
	want, _ := os.ReadFile(filepath.Join(e.arts, e.run, "shots", "n3.png"))
	if b, err := os.ReadFile(filepath.Join(e.arts, r.ID, "shots", "n3.png")); err != nil || !bytes.Equal(b, want) {
		t.Errorf("imported screenshot: %v", err)
	}
	// The file change shows with its (redacted) content.
	changes, err := e.st.FileChanges(ctx, r.ID)
	if err != nil || len(changes) != 1 || changes[0].Path != "a.txt" {
		t.Fatalf("imported file changes = %+v, %v", changes, err)
	}

	// The other formats are made from the same redacted recording.
	for _, format := range []string{exchange.FormatHTML, exchange.FormatOTLP} {
		var out bytes.Buffer
		if _, err := e.ex.Export(ctx, e.run, format, &out); err != nil || out.Len() == 0 || bytes.Contains(out.Bytes(), []byte(secret)) {
			t.Errorf("export %s: %v, %d bytes, secret inside: %v", format, err, out.Len(), bytes.Contains(out.Bytes(), []byte(secret)))
		}
	}
}

func TestExportRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	var out bytes.Buffer
	if _, err := e.ex.Export(ctx, e.run, "pdf", &out); !errors.Is(err, exchange.ErrInvalid) || !strings.Contains(err.Error(), "steward, html, otlp, video") {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := e.ex.Export(ctx, e.run, exchange.FormatVideo, &out); !errors.Is(err, exchange.ErrInvalid) || !strings.Contains(err.Error(), "no video") {
		t.Errorf("video of a run without a browser: %v", err)
	}
	if _, err := e.ex.Export(ctx, "run_nope", exchange.FormatSteward, &out); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown run: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("refused exports wrote %d bytes", out.Len())
	}
	// A file that is not a recording is refused and leaves nothing.
	before, _ := e.st.ListRuns(ctx, store.RunFilter{})
	junk := []byte("PK\x03\x04 this is not a recording")
	if _, err := e.ex.Import(ctx, bytes.NewReader(junk), int64(len(junk))); !errors.Is(err, exchange.ErrInvalid) {
		t.Errorf("import of junk: %v", err)
	}
	after, _ := e.st.ListRuns(ctx, store.RunFilter{})
	if len(after) != len(before) {
		t.Errorf("a refused import left a run")
	}
	if entries, _ := os.ReadDir(e.arts); len(entries) != 1 {
		t.Errorf("a refused import left artifacts: %v", entries)
	}
}

func TestExportVideo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	video := bytes.Repeat([]byte("mp4"), 1000)
	if err := os.WriteFile(filepath.Join(e.arts, e.run, "browser.mp4"), video, 0o644); err != nil {
		t.Fatal(err)
	}
	// A run's video is announced as it ends; this run ended already, so the
	// event comes after: the export looks for the announcement anywhere.
	if _, err := e.st.Append(ctx, event.New(e.run, event.ArtifactCreated, "", event.ArtifactCreatedData{Name: "browser.mp4", Kind: "video", Mime: "video/mp4", Size: 3000})); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ex, err := e.ex.Export(ctx, e.run, exchange.FormatVideo, &out)
	if err != nil || ex.Filename != "run_src.mp4" || ex.Mime != "video/mp4" || !bytes.Equal(out.Bytes(), video) {
		t.Fatalf("video export = %+v, %v, %d bytes", ex, err, out.Len())
	}
}
