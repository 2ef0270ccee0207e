package video_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/tools/browser/video"
)

// op is one call on a Recorder at a synthetic time (ms after t0).
type op struct {
	kind string // "begin", "end" or "frame"
	node string
	ms   int
}

func replay(t *testing.T, r *video.Recorder, ops []op) {
	t.Helper()
	img := frameJPEG(t, 64, 48, palette[0], 0)
	for _, o := range ops {
		switch o.kind {
		case "begin":
			r.Begin(o.node, at(o.ms))
		case "end":
			r.End(o.node, at(o.ms))
		case "frame":
			if err := r.Frame(at(o.ms), img); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("bad op %q", o.kind)
		}
	}
}

func win(startMS, endMS int, nodes ...string) video.Window {
	return video.Window{Start: at(startMS), End: at(endMS), Nodes: nodes}
}

func TestWindows(t *testing.T) {
	t.Parallel()
	before, after := int(video.Before/time.Millisecond), int(video.After/time.Millisecond)
	gap := before + after // the widest gap between actions that still merges
	tests := []struct {
		name string
		ops  []op
		want []video.Window
	}{
		{"none", nil, nil},
		{"frames only", []op{{"frame", "", 0}, {"frame", "", 500}}, nil},
		{"one action", []op{{"begin", "a", 1000}, {"end", "a", 1400}},
			[]video.Window{win(1000-before, 1400+after, "a")}},
		{"apart", []op{{"begin", "a", 1000}, {"end", "a", 1400}, {"begin", "b", 7400}, {"end", "b", 7800}},
			[]video.Window{win(1000-before, 1400+after, "a"), win(7400-before, 7800+after, "b")}},
		{"padding overlaps", []op{{"begin", "a", 1000}, {"end", "a", 1400}, {"begin", "b", 2400}, {"end", "b", 2800}},
			[]video.Window{win(1000-before, 2800+after, "a", "b")}},
		{"padding touches", []op{{"begin", "a", 1000}, {"end", "a", 1400}, {"begin", "b", 1400 + gap}, {"end", "b", 1500 + gap}},
			[]video.Window{win(1000-before, 1500+gap+after, "a", "b")}},
		{"one ms apart", []op{{"begin", "a", 1000}, {"end", "a", 1400}, {"begin", "b", 1401 + gap}, {"end", "b", 1500 + gap}},
			[]video.Window{win(1000-before, 1400+after, "a"), win(1401+gap-before, 1500+gap+after, "b")}},
		{"nested", []op{{"begin", "a", 1000}, {"begin", "b", 1100}, {"end", "b", 1200}, {"end", "a", 5000}},
			[]video.Window{win(1000-before, 5000+after, "a", "b")}},
		{"three chained, same node twice", []op{
			{"begin", "a", 1000}, {"end", "a", 1100}, {"begin", "b", 2000}, {"end", "b", 2100},
			{"begin", "a", 3000}, {"end", "a", 3100}},
			[]video.Window{win(1000-before, 3100+after, "a", "b")}},
		{"open, frames since", []op{{"begin", "a", 1000}, {"frame", "", 1200}, {"frame", "", 3000}},
			[]video.Window{win(1000-before, 3000+after, "a")}},
		{"open, no frame since", []op{{"frame", "", 500}, {"begin", "a", 1000}},
			[]video.Window{win(1000-before, 1000+after, "a")}},
		{"open after closed", []op{{"begin", "a", 1000}, {"end", "a", 1100}, {"begin", "b", 9000}, {"frame", "", 9500}},
			[]video.Window{win(1000-before, 1100+after, "a"), win(9000-before, 9500+after, "b")}},
		{"end without begin ignored", []op{{"end", "x", 500}, {"begin", "a", 1000}, {"end", "a", 1400}, {"end", "a", 9000}},
			[]video.Window{win(1000-before, 1400+after, "a")}},
		{"second begin ignored", []op{{"begin", "a", 1000}, {"begin", "a", 1300}, {"end", "a", 1400}},
			[]video.Window{win(1000-before, 1400+after, "a")}},
		{"end before begin clamped", []op{{"begin", "a", 1000}, {"end", "a", 900}},
			[]video.Window{win(1000-before, 1000+after, "a")}},
		{"begun out of order", []op{{"begin", "b", 9000}, {"begin", "a", 1000}, {"end", "a", 1100}, {"end", "b", 9100}},
			[]video.Window{win(1000-before, 1100+after, "a"), win(9000-before, 9100+after, "b")}},
		{"unnamed node", []op{{"begin", "", 1000}, {"end", "", 1100}},
			[]video.Window{win(1000-before, 1100+after)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r, err := video.NewRecorder(dir)
			if err != nil {
				t.Fatal(err)
			}
			replay(t, r, tt.ops)
			if diff := cmp.Diff(tt.want, r.Windows()); diff != "" {
				t.Errorf("Windows() (-want +got):\n%s", diff)
			}
			// The index alone rebuilds the same windows (open actions are
			// closed at the newest frame, which is where they ended above).
			reopened, err := video.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, reopened.Windows()); diff != "" {
				t.Errorf("Windows() after Open (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFrameValidation(t *testing.T) {
	t.Parallel()
	r, err := video.NewRecorder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	good := frameJPEG(t, 32, 32, palette[0], 0)
	tests := []struct {
		name string
		ts   time.Time
		img  []byte
		want string
	}{
		{"zero time", time.Time{}, good, "zero timestamp"},
		{"nil image", t0, nil, "empty image"},
		{"empty image", t0, []byte{}, "empty image"},
		{"png", t0, []byte("\x89PNG\r\n\x1a\n"), "not a JPEG"},
		{"too short", t0, []byte{0xFF, 0xD8}, "not a JPEG"},
	}
	for _, tt := range tests {
		err := r.Frame(tt.ts, tt.img)
		if !errors.Is(err, video.ErrInvalidFrame) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Frame() = %v, want ErrInvalidFrame mentioning %q", tt.name, err, tt.want)
		}
	}
	if n := r.Frames(); n != 0 {
		t.Errorf("Frames() = %d after invalid frames, want 0", n)
	}
	if _, _, ok := r.Latest(); ok {
		t.Error("Latest() ok after invalid frames only")
	}
}

func TestLatest(t *testing.T) {
	t.Parallel()
	r, err := video.NewRecorder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := frameJPEG(t, 32, 32, palette[0], 0), frameJPEG(t, 32, 32, palette[1], 1)
	if err := r.Frame(at(100), a); err != nil {
		t.Fatal(err)
	}
	if err := r.Frame(at(200), b); err != nil {
		t.Fatal(err)
	}
	img, ts, ok := r.Latest()
	if !ok || !ts.Equal(at(200)) || !bytes.Equal(img, b) {
		t.Fatalf("Latest() = %d bytes, %v, %v; want the frame at %v", len(img), ts, ok, at(200))
	}
	img[0] = 0 // a copy: the recorder's frame is untouched
	if img2, _, _ := r.Latest(); !bytes.Equal(img2, b) {
		t.Error("Latest() returned the recorder's own buffer")
	}
}

// TestOpenRebuilds drops a recorder and checks that its directory alone
// gives back the same recording.
func TestOpenRebuilds(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "frames")
	// The recorder lives only inside this func: afterwards only dir remains.
	wantWindows, wantFrames, wantImg, wantTS := func() ([]video.Window, int, []byte, time.Time) {
		r, err := video.NewRecorder(dir)
		if err != nil {
			t.Fatal(err)
		}
		record(t, r, scenario{actions: 3, fps: 10, thinkMS: 3000})
		img, ts, _ := r.Latest()
		return r.Windows(), r.Frames(), img, ts
	}()

	got, err := video.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantWindows, got.Windows()); diff != "" {
		t.Errorf("Windows() after Open (-want +got):\n%s", diff)
	}
	if n := got.Frames(); n != wantFrames {
		t.Errorf("Frames() after Open = %d, want %d", n, wantFrames)
	}
	img, ts, ok := got.Latest()
	if !ok || !ts.Equal(wantTS) || !bytes.Equal(img, wantImg) {
		t.Errorf("Latest() after Open = %d bytes at %v (%v), want %d bytes at %v", len(img), ts, ok, len(wantImg), wantTS)
	}

	// NewRecorder on the same dir continues the recording too.
	again, err := video.NewRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := again.Frames(); n != wantFrames {
		t.Errorf("Frames() of NewRecorder on an existing dir = %d, want %d", n, wantFrames)
	}
}

func TestOpenMissing(t *testing.T) {
	t.Parallel()
	if _, err := video.Open(t.TempDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(empty dir) = %v, want fs.ErrNotExist", err)
	}
}

func TestOpenTruncatedIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tail   string // appended to a valid index, as a crash mid-write would
		frames int    // frames seen by Open: 3 written + the tail's, if whole
	}{
		{"partial frame line", `{"ts":1700000009000,"fi`, 3},
		{"partial begin line", `{"begin":17000`, 3},
		{"whole line without newline", `{"ts":1700000000300,"file":"000000-1700000000000.jpg"}`, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r, err := video.NewRecorder(dir)
			if err != nil {
				t.Fatal(err)
			}
			replay(t, r, []op{{"begin", "a", 0}, {"frame", "", 0}, {"frame", "", 100}, {"frame", "", 200}, {"end", "a", 250}})
			index := filepath.Join(dir, "frames.jsonl")
			appendString(t, index, tt.tail)

			got, err := video.Open(dir)
			if err != nil {
				t.Fatalf("Open with a truncated last line: %v", err)
			}
			if n := got.Frames(); n != tt.frames {
				t.Errorf("Frames() = %d, want %d", n, tt.frames)
			}
			// The repaired index takes appends that a later Open reads back.
			if err := got.Frame(at(5000), frameJPEG(t, 32, 32, palette[0], 0)); err != nil {
				t.Fatal(err)
			}
			again, err := video.Open(dir)
			if err != nil {
				t.Fatalf("Open after an append to the repaired index: %v", err)
			}
			if n := again.Frames(); n != tt.frames+1 {
				t.Errorf("Frames() after append = %d, want %d", n, tt.frames+1)
			}
		})
	}
}

func TestOpenCorruptIndex(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, line string }{
		{"garbage", "not json"},
		{"unknown record", `{"x":1}`},
		{"frame without ts", `{"file":"a.jpg"}`},
		{"escaping file name", `{"ts":1,"file":"../etc/passwd"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if _, err := video.NewRecorder(dir); err != nil {
				t.Fatal(err)
			}
			// A bad line in the middle is not a crash artefact: Open says where.
			appendString(t, filepath.Join(dir, "frames.jsonl"), tt.line+"\n"+`{"begin":1}`+"\n")
			if _, err := video.Open(dir); err == nil || !strings.Contains(err.Error(), "line 1") {
				t.Errorf("Open() = %v, want an error naming line 1", err)
			}
		})
	}
}

// TestOpenClosesDanglingAction: a crash during an action must not stretch
// its window across the downtime once recording resumes.
func TestOpenClosesDanglingAction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, err := video.NewRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	replay(t, r, []op{{"begin", "a", 1000}, {"frame", "", 1000}, {"frame", "", 1500}})

	got, err := video.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	replay(t, got, []op{{"frame", "", 60_000}, {"begin", "b", 60_000}, {"end", "b", 60_100}})
	want := []video.Window{win(1000-750, 1500+1500, "a"), win(60_000-750, 60_100+1500, "b")}
	if diff := cmp.Diff(want, got.Windows()); diff != "" {
		t.Errorf("Windows() (-want +got):\n%s", diff)
	}
}

// TestFrameNode checks that the index ties each frame to the node acting.
func TestFrameNode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, err := video.NewRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	replay(t, r, []op{
		{"frame", "", 0}, {"begin", "n_1", 100}, {"frame", "", 150}, {"begin", "n_2", 200},
		{"frame", "", 250}, {"end", "n_2", 300}, {"frame", "", 350}, {"end", "n_1", 400}, {"frame", "", 450},
	})
	var nodes []string
	f, err := os.Open(filepath.Join(dir, "frames.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct {
			File string `json:"file"`
			Node string `json:"node"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.File != "" {
			nodes = append(nodes, rec.Node)
		}
	}
	if diff := cmp.Diff([]string{"", "n_1", "n_2", "n_1", ""}, nodes); diff != "" {
		t.Errorf("frame nodes (-want +got):\n%s", diff)
	}
}

// TestConcurrent runs the recorder's methods from several goroutines; -race
// checks the locking.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, err := video.NewRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	img := frameJPEG(t, 32, 32, palette[0], 0)
	const workers, each = 4, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			node := string(rune('a' + w))
			for i := range each {
				ms := w*10_000 + i*20
				r.Begin(node, at(ms))
				if err := r.Frame(at(ms+5), img); err != nil {
					t.Error(err)
					return
				}
				r.End(node, at(ms+10))
				_, _, _ = r.Latest()
				_ = r.Windows()
			}
		})
	}
	wg.Wait()
	if n := r.Frames(); n != workers*each {
		t.Fatalf("Frames() = %d, want %d", n, workers*each)
	}
	got, err := video.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := got.Frames(); n != workers*each {
		t.Errorf("Frames() after Open = %d, want %d", n, workers*each)
	}
	if diff := cmp.Diff(r.Windows(), got.Windows()); diff != "" {
		t.Errorf("Windows() after Open (-live +reopened):\n%s", diff)
	}
}

func appendString(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
