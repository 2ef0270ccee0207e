package video_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/tools/browser/video"
)

// scenario is a synthetic agent session: actions of 400 ms, each followed by
// a second of repaints (the page reacting) and then thinkMS of thinking with
// a frame every 2 s (a blinking caret); one frame of an idle page comes
// before the first action. Action k paints palette[k].
type scenario struct {
	actions, fps, thinkMS int
	w, h                  int // frame size; 0 means 320x240
}

const actionMS, reactMS, sparseMS, firstBeginMS = 400, 1000, 2000, 1000

func (s scenario) begin(k int) int { return firstBeginMS + k*(actionMS+s.thinkMS) }

// record plays s into r and returns how long the recording took in wall time.
func record(tb testing.TB, r *video.Recorder, s scenario) (wall time.Duration) {
	tb.Helper()
	w, h := s.w, s.h
	if w == 0 {
		w, h = 320, 240
	}
	frame := func(ms int, bg int, i int) {
		if err := r.Frame(at(ms), frameJPEG(tb, w, h, palette[bg], i)); err != nil {
			tb.Fatal(err)
		}
	}
	frame(0, len(palette)-1, 0)
	step := 1000 / s.fps
	last := 0
	for k := range s.actions {
		b := s.begin(k)
		r.Begin(fmt.Sprintf("n_%d", k), at(b))
		i := 0
		for ms := b; ms < b+actionMS+reactMS; ms += step {
			if ms >= b+actionMS && ms-step < b+actionMS {
				r.End(fmt.Sprintf("n_%d", k), at(b+actionMS))
			}
			frame(ms, k%(len(palette)-1), i)
			i++
		}
		for ms := b + actionMS + reactMS + sparseMS; ms < b+actionMS+s.thinkMS; ms += sparseMS {
			frame(ms, k%(len(palette)-1), i)
			last = ms
			i++
		}
	}
	return at(last).Sub(t0)
}

func TestEncode(t *testing.T) {
	needFFmpeg(t)
	t.Parallel()
	dir := t.TempDir()
	r, err := video.NewRecorder(filepath.Join(dir, "frames"))
	if err != nil {
		t.Fatal(err)
	}
	sc := scenario{actions: 5, fps: 20, thinkMS: 6000}
	wall := record(t, r, sc)
	wins := r.Windows()
	if len(wins) != sc.actions {
		t.Fatalf("got %d windows, want %d (thinking gaps must not merge): %v", len(wins), sc.actions, wins)
	}
	var kept time.Duration
	for _, w := range wins {
		kept += w.End.Sub(w.Start)
	}
	winLen := video.Before + actionMS*time.Millisecond + video.After

	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "video", "browser."+format)
			start := time.Now()
			info, err := r.Encode(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)

			st, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			if info.Path != out || info.Format != format || info.Size != st.Size() || info.Duration != kept {
				t.Errorf("Info = %+v, want path %s, format %s, size %d, duration %v", info, out, format, st.Size(), kept)
			}
			// Kept: the idle page, every action's frames, and the last
			// thinking frame before each later action (on screen at its
			// window's start); the other thinking frames are dropped.
			wantFrames := 1 + sc.actions*(actionMS+reactMS)*sc.fps/1000 + sc.actions - 1
			if info.Frames != wantFrames {
				t.Errorf("Info.Frames = %d of %d, want %d", info.Frames, r.Frames(), wantFrames)
			}

			dur, w, h := probe(t, out)
			t.Logf("%s: %d of %d frames, %.3fs (planned %v) of %v wall time, encoded in %v, %d bytes",
				format, info.Frames, r.Frames(), dur, info.Duration, wall, took.Round(time.Millisecond), info.Size)
			if math.Abs(dur-kept.Seconds()) > 0.3 {
				t.Errorf("video lasts %.3fs, want %.3fs (the windows) ± 0.3s", dur, kept.Seconds())
			}
			if dur > wall.Seconds()/2 {
				t.Errorf("video lasts %.3fs: idle time was not cut (wall time %v)", dur, wall)
			}
			if w != 320 || h != 240 {
				t.Errorf("video is %dx%d, want 320x240", w, h)
			}

			// Each window shows the page before the action (the frame
			// current at the window start), then the action's own frames.
			for k := range sc.actions {
				base := time.Duration(k) * winLen
				prev := len(palette) - 1
				if k > 0 {
					prev = (k - 1) % (len(palette) - 1)
				}
				checks := []struct {
					off time.Duration
					bg  int
				}{
					{video.Before / 2, prev},
					{video.Before + actionMS/2*time.Millisecond, k % (len(palette) - 1)},
					{winLen - video.After/2, k % (len(palette) - 1)},
				}
				for _, c := range checks {
					sec := (base + c.off).Seconds()
					if got := pixelAt(t, out, sec, 0, 0); !near(got, palette[c.bg], 30) {
						t.Errorf("window %d at %.3fs: colour %v, want %v", k, sec, got, palette[c.bg])
					}
				}
			}

			// Nothing left behind: no partial output, no concat list.
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*partial*")); len(left) > 0 {
				t.Errorf("partial files left: %v", left)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "frames", "concat-*")); len(left) > 0 {
				t.Errorf("concat lists left: %v", left)
			}
		})
	}
}

// TestEncodeResize: a viewport resized mid-recording must neither fail the
// encoder (which cannot change size) nor drop the frames around the change.
func TestEncodeResize(t *testing.T) {
	needFFmpeg(t)
	t.Parallel()
	r, err := video.NewRecorder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r.Begin("n_1", at(0))
	sizes := []struct{ w, h, ms int }{{320, 240, 0}, {640, 360, 1000}, {321, 241, 2000}}
	for i, s := range sizes {
		if err := r.Frame(at(s.ms), frameJPEG(t, s.w, s.h, palette[i], 0)); err != nil {
			t.Fatal(err)
		}
	}
	r.End("n_1", at(3000-int(video.After/time.Millisecond)))
	out := filepath.Join(t.TempDir(), "resize.mp4")
	info, err := r.Encode(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if _, w, h := probe(t, out); w != 320 || h != 240 {
		t.Errorf("video is %dx%d, want the first frame's 320x240", w, h)
	}
	for i, s := range sizes {
		// The window opens before the first frame, so the video starts at it.
		sec := (time.Duration(s.ms+500) * time.Millisecond).Seconds()
		if got := pixelAt(t, out, sec, 152, 112); !near(got, palette[i], 30) {
			t.Errorf("frame %d (%dx%d) at %.3fs: colour %v, want %v", i, s.w, s.h, sec, got, palette[i])
		}
	}
	t.Logf("info %+v", info)
}

func TestEncodeErrors(t *testing.T) {
	needFFmpeg(t)
	t.Parallel()
	newRec := func(t *testing.T, ops []op) *video.Recorder {
		r, err := video.NewRecorder(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		replay(t, r, ops)
		return r
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ops    []op
		ctx    context.Context
		out    string
		is     error
		substr string
	}{
		{"no actions", []op{{"frame", "", 0}}, context.Background(), "v.mp4", video.ErrNoFrames, ""},
		{"no frames", []op{{"begin", "a", 0}, {"end", "a", 100}}, context.Background(), "v.mp4", video.ErrNoFrames, ""},
		{"frames only after the windows", []op{{"begin", "a", 0}, {"end", "a", 100}, {"frame", "", 10_000}},
			context.Background(), "v.webm", video.ErrNoFrames, ""},
		{"unsupported format", []op{{"begin", "a", 0}, {"frame", "", 0}}, context.Background(), "v.gif", nil, "unsupported video format"},
		{"cancelled", []op{{"begin", "a", 0}, {"frame", "", 0}}, cancelled, "v.mp4", context.Canceled, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRec(t, tt.ops)
			outDir := t.TempDir()
			out := filepath.Join(outDir, tt.out)
			_, err := r.Encode(tt.ctx, out)
			if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) || !strings.Contains(err.Error(), tt.substr) {
				t.Fatalf("Encode() = %v, want %v %q", err, tt.is, tt.substr)
			}
			if left, _ := os.ReadDir(outDir); len(left) > 0 {
				t.Errorf("files left after a failed encode: %v", left)
			}
		})
	}
}

// TestNoFFmpeg cannot run in parallel: it empties PATH.
func TestNoFFmpeg(t *testing.T) {
	dir := t.TempDir()
	r, err := video.NewRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	record(t, r, scenario{actions: 1, fps: 10, thinkMS: 3000})
	t.Setenv("PATH", t.TempDir())

	if _, err := video.FFmpeg(); !errors.Is(err, video.ErrNoFFmpeg) || !strings.Contains(err.Error(), "apt install ffmpeg") {
		t.Errorf("FFmpeg() = %v, want ErrNoFFmpeg naming what to install", err)
	}
	out := filepath.Join(t.TempDir(), "browser.mp4")
	if _, err := r.Encode(context.Background(), out); !errors.Is(err, video.ErrNoFFmpeg) {
		t.Errorf("Encode() = %v, want ErrNoFFmpeg", err)
	}
	// The frames stay for a later encode.
	files, _ := filepath.Glob(filepath.Join(dir, "*.jpg"))
	if len(files) != r.Frames() || len(files) == 0 {
		t.Errorf("%d frame files for %d frames after ErrNoFFmpeg", len(files), r.Frames())
	}
}

func BenchmarkEncode(b *testing.B) {
	needFFmpeg(b)
	r, err := video.NewRecorder(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	record(b, r, scenario{actions: 2, fps: 25, thinkMS: 4000})
	out := filepath.Join(b.TempDir(), "bench.mp4")
	for b.Loop() {
		if _, err := r.Encode(context.Background(), out); err != nil {
			b.Fatal(err)
		}
	}
}
