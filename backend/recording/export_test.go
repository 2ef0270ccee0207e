package recording_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"steward/backend/event"
	"steward/backend/recording"
)

var created = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

func export(t testing.TB, src *fakeSource, o recording.ExportOptions) ([]byte, recording.Manifest) {
	t.Helper()
	if o.Now == nil {
		o.Now = func() time.Time { return created }
	}
	if o.Steward == "" {
		o.Steward = "1.2.3"
	}
	var buf bytes.Buffer
	m, err := recording.Export(context.Background(), src, src.run.ID, &buf, o)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	return buf.Bytes(), m
}

func read(t testing.TB, data []byte) *recording.Bundle {
	t.Helper()
	b, err := recording.Read(bytes.NewReader(data), int64(len(data)), recording.Limits{})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	src := script("r1", 300, 10)
	withArtifacts(t, src)
	data, m := export(t, src, recording.ExportOptions{})
	b := read(t, data)

	if diff := cmp.Diff(m, b.Manifest); diff != "" {
		t.Errorf("manifest read differs from the one returned (-export +read):\n%s", diff)
	}
	if diff := cmp.Diff(src.events, b.Events); diff != "" {
		t.Errorf("events (-source +read):\n%s", diff)
	}
	if diff := cmp.Diff(src.blobs, b.Blobs); diff != "" {
		t.Errorf("blobs (-source +read):\n%s", diff)
	}
	if want := []string{"browser.mp4", "shots/n2.png"}; !slices.Equal(b.Artifacts, want) {
		t.Errorf("artifacts %q, want %q", b.Artifacts, want)
	}
	for _, name := range b.Artifacts {
		rc, err := b.OpenArtifact(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("artifact %s: %v", name, err)
		}
		if want, _ := os.ReadFile(filepath.Join(src.dir, name)); !bytes.Equal(got, want) {
			t.Errorf("artifact %s: %d bytes read, %d on disk", name, len(got), len(want))
		}
	}
	out := t.TempDir()
	if err := b.WriteArtifacts(out); err != nil {
		t.Fatal(err)
	}
	for _, name := range b.Artifacts {
		got, _ := os.ReadFile(filepath.Join(out, name))
		if want, _ := os.ReadFile(filepath.Join(src.dir, name)); !bytes.Equal(got, want) {
			t.Errorf("written artifact %s differs", name)
		}
	}

	d := m.Diagnostics
	wantRun := src.run
	wantRun.Events = len(src.events)
	if diff := cmp.Diff(wantRun, m.Run); diff != "" {
		t.Errorf("run summary (-want +got):\n%s", diff)
	}
	if m.Format != recording.Format || m.Version != recording.Version || m.Steward != "1.2.3" || m.CreatedAt != created.UnixMilli() {
		t.Errorf("manifest head %q %d %q %d", m.Format, m.Version, m.Steward, m.CreatedAt)
	}
	if d.Events != len(src.events) || d.FirstSeq != 1 || d.LastSeq != int64(len(src.events)) || d.Blobs != 10 || d.Artifacts != 2 {
		t.Errorf("diagnostics %+v", d)
	}
	if len(d.MissingBlobs) != 1 || len(d.LeftOut) != 1 || d.LeftOut[0].Name != "frames" || len(d.Notes) != 1 {
		t.Errorf("missing %q, left out %+v, notes %q", d.MissingBlobs, d.LeftOut, d.Notes)
	}
	if !json.Valid(m.Agent) || !bytes.Contains(m.Agent, []byte(`"tools"`)) {
		t.Errorf("agent snapshot %s", m.Agent)
	}
	if m.Redactions == nil {
		t.Error("redactions: nil, want an empty list")
	}
}

// TestLayout checks the zip itself: manifest first, fixed times, Deflate
// for what compresses and Store for pictures and videos.
func TestLayout(t *testing.T) {
	t.Parallel()
	src := script("r1", 300, 10)
	withArtifacts(t, src)
	data, m := export(t, src, recording.ExportOptions{})
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !f.Modified.Equal(created) {
			t.Errorf("%s: modified %v, want %v", f.Name, f.Modified, created)
		}
		want := zip.Deflate
		if f.Name == "artifacts/browser.mp4" || f.Name == "artifacts/shots/n2.png" {
			want = zip.Store
		}
		if f.Method != want {
			t.Errorf("%s: method %d, want %d", f.Name, f.Method, want)
		}
	}
	var parts []string
	for _, p := range m.Parts {
		parts = append(parts, p.Name)
	}
	if diff := cmp.Diff(append([]string{"manifest.json"}, parts...), names); diff != "" {
		t.Errorf("zip entries are not the manifest then its parts (-want +got):\n%s", diff)
	}
	if parts[0] != "events.jsonl" || !slices.IsSorted(parts[1:11]) || parts[11] != "artifacts/browser.mp4" {
		t.Errorf("parts order %q", parts)
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	src := script("r1", 500, 20)
	withArtifacts(t, src)
	a, _ := export(t, src, recording.ExportOptions{})
	b, _ := export(t, src, recording.ExportOptions{})
	if !bytes.Equal(a, b) {
		t.Fatal("two exports of the same run differ")
	}
}

func TestExportRefuses(t *testing.T) {
	t.Parallel()
	for name, mutate := range map[string]func(*fakeSource){
		"no events":        func(s *fakeSource) { s.events = nil },
		"gap in seqs":      func(s *fakeSource) { s.events = slices.Delete(s.events, 3, 4) },
		"not created":      func(s *fakeSource) { s.events = s.events[1:] },
		"another run's":    func(s *fakeSource) { s.events[2].RunID = "r2" },
		"blob store fails": func(s *fakeSource) { s.blobErr = errors.New("disk on fire") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := script("r1", 100, 2)
			mutate(src)
			_, err := recording.Export(context.Background(), src, "r1", io.Discard, recording.ExportOptions{})
			if err == nil {
				t.Fatal("export succeeded")
			}
			t.Log(err)
		})
	}
}

func TestManifestSchema(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../docs/recording.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("schema: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolve schema: %v", err)
	}
	src := script("r1", 300, 10)
	withArtifacts(t, src)
	data, _ := export(t, src, recording.ExportOptions{})
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	man, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	instance := func(edit func(map[string]any)) map[string]any {
		var v map[string]any
		if err := json.Unmarshal(man, &v); err != nil {
			t.Fatal(err)
		}
		edit(v)
		return v
	}
	if err := rs.Validate(instance(func(map[string]any) {})); err != nil {
		t.Errorf("a written manifest does not validate: %v", err)
	}
	// The schema must say no to what a reader refuses, or it checks nothing.
	for name, edit := range map[string]func(map[string]any){
		"no parts":    func(v map[string]any) { delete(v, "parts") },
		"version 2":   func(v map[string]any) { v["version"] = 2 },
		"bad sha256":  func(v map[string]any) { v["parts"].([]any)[0].(map[string]any)["sha256"] = "XYZ" },
		"escape name": func(v map[string]any) { v["parts"].([]any)[0].(map[string]any)["name"] = "../x" },
		"other kind":  func(v map[string]any) { v["parts"].([]any)[0].(map[string]any)["name"] = "notes.txt" },
	} {
		if err := rs.Validate(instance(edit)); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
	}
}

// TestLeftOut checks that what a recording does not hold is said in its
// diagnostics, for each reason.
func TestLeftOut(t *testing.T) {
	t.Parallel()
	video := func(src *fakeSource) int {
		return slices.IndexFunc(src.events, func(e event.Event) bool {
			return e.Type == event.ArtifactCreated && bytes.Contains(e.Data, []byte(`"video"`))
		})
	}
	tests := []struct {
		name      string
		change    func(t *testing.T, src *fakeSource)
		artifacts []string
		leftOut   []recording.LeftOut
		note      string
	}{
		{
			name: "frames without a video",
			change: func(t *testing.T, src *fakeSource) {
				src.events[video(src)] = reencode(src.events[video(src)], event.ArtifactCreatedData{Name: "shots/n2.png", Kind: "screenshot", Mime: "image/png"})
			},
			artifacts: []string{"shots/n2.png"},
			leftOut:   []recording.LeftOut{{Name: "frames", Reason: "loose frames of the browser recording, not made into a video: a recording holds no loose frames"}},
			note:      "the run's browser recording was not made into a video (no ffmpeg), so it is not in this recording",
		},
		{
			name:      "a file gone from the folder",
			change:    func(t *testing.T, src *fakeSource) { os.Remove(filepath.Join(src.dir, "browser.mp4")) },
			artifacts: []string{"shots/n2.png"},
			leftOut: []recording.LeftOut{
				{Name: "browser.mp4", Reason: "the file is no longer in the artifacts folder"},
				{Name: "frames", Reason: "loose frames of the browser recording: the video holds them"},
			},
		},
		{
			name:   "no artifacts folder",
			change: func(t *testing.T, src *fakeSource) { src.dir = "" },
			leftOut: []recording.LeftOut{
				{Name: "browser.mp4", Reason: "the run's artifacts folder is not kept"},
				{Name: "frames", Reason: "loose frames of the browser recording: the video holds them"},
				{Name: "shots/n2.png", Reason: "the run's artifacts folder is not kept"},
			},
		},
		{
			name: "a link that leads out",
			change: func(t *testing.T, src *fakeSource) {
				p := filepath.Join(src.dir, "shots", "n2.png")
				os.Remove(p)
				if err := os.Symlink("/etc/hostname", p); err != nil {
					t.Skip("this file system cannot make symbolic links, so there is no link to refuse:", err)
				}
			},
			artifacts: []string{"browser.mp4"},
			leftOut: []recording.LeftOut{
				{Name: "frames", Reason: "loose frames of the browser recording: the video holds them"},
				{Name: "shots/n2.png", Reason: "the file cannot be read"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := script("r1", 100, 2)
			withArtifacts(t, src)
			tt.change(t, src)
			data, m := export(t, src, recording.ExportOptions{})
			b := read(t, data)
			if diff := cmp.Diff(tt.artifacts, b.Artifacts); diff != "" {
				t.Errorf("artifacts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.leftOut, m.Diagnostics.LeftOut); diff != "" {
				t.Errorf("left out (-want +got):\n%s", diff)
			}
			if tt.note != "" && !slices.Contains(m.Diagnostics.Notes, tt.note) {
				t.Errorf("notes %q lack %q", m.Diagnostics.Notes, tt.note)
			}
		})
	}
}
