package video

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"steward/backend/sandbox"
)

// fps is the constant output frame rate: players and seek bars misbehave on
// the variable rate the screencast has, and 25 fps is smooth enough for
// page changes.
const fps = 25

// stderrTail bounds the ffmpeg output kept for an error message.
const stderrTail = 4 << 10

// Info describes an encoded video.
type Info struct {
	Path     string        // the output file
	Format   string        // "mp4" or "webm"
	Duration time.Duration // planned length: the windows that have frames (ffmpeg rounds to whole frames)
	Frames   int           // distinct screencast frames shown
	Size     int64         // bytes
}

// FFmpeg returns the path of the ffmpeg binary on PATH, or ErrNoFFmpeg.
func FFmpeg() (string, error) {
	path, err := exec.LookPath("ffmpeg")
	if err != nil {
		return "", ErrNoFFmpeg
	}
	return path, nil
}

// Encode writes the frames inside the action windows (see Windows) to out,
// with the idle gaps between windows cut. The format follows out's
// extension: .mp4 (H.264) or .webm (VP9). out is written whole or not at all.
// Errors: ErrNoFFmpeg when ffmpeg is missing (the frames stay, so Encode can
// be retried), ErrNoFrames when no window has a frame, and ffmpeg's failure
// with the last lines it printed.
func (r *Recorder) Encode(ctx context.Context, out string) (Info, error) {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
	codec, ok := codecs[format]
	if !ok {
		return Info{}, fmt.Errorf("encode %s: unsupported video format %q (want .mp4 or .webm)", out, filepath.Ext(out))
	}
	bin, err := FFmpeg()
	if err != nil {
		return Info{}, err
	}

	r.mu.Lock()
	frames, acts, newest := slices.Clone(r.frames), slices.Clone(r.actions), r.newest()
	r.mu.Unlock()
	slices.SortStableFunc(frames, func(a, b frame) int { return a.ts.Compare(b.ts) })
	segs, total := plan(frames, windows(acts, newest))
	if len(segs) == 0 {
		return Info{}, fmt.Errorf("encode %s: %w", out, ErrNoFrames)
	}
	w, h, err := frameSize(filepath.Join(r.dir, segs[0].file))
	if err != nil {
		return Info{}, fmt.Errorf("encode %s: %w", out, err)
	}

	list, err := writeList(r.dir, segs)
	if err != nil {
		return Info{}, fmt.Errorf("encode %s: %w", out, err)
	}
	defer func() { _ = os.Remove(list) }()

	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		return Info{}, fmt.Errorf("encode %s: %w", out, err)
	}
	// ffmpeg writes a temporary file renamed into place, so a failed or
	// cancelled encode never leaves a truncated video at out.
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.partial")
	if err != nil {
		return Info{}, fmt.Errorf("encode %s: %w", out, err)
	}
	tmpName := tmp.Name()
	defer func() { _ = os.Remove(tmpName) }() // fails harmlessly after the rename
	if err := tmp.Close(); err != nil {
		return Info{}, fmt.Errorf("encode %s: %w", out, err)
	}

	args := []string{
		"-nostdin", "-hide_banner", "-loglevel", "error", "-y",
		// Keep the filter graph when a frame's size changes (a resized
		// viewport): rebuilding it flushes the fps filter, which drops the
		// frames it holds. The scale filter adapts to the new size itself.
		"-reinit_filter", "0",
		"-f", "concat", "-i", list,
		"-vf", filterChain(w, h),
		"-t", seconds(total), // the repeated last entry (see writeList) would add a frame
		"-pix_fmt", "yuv420p", // what every player decodes; needs even sizes
	}
	args = append(args, codec...)
	args = append(args, "-f", format, tmpName)
	if err := run(ctx, bin, args); err != nil {
		return Info{}, fmt.Errorf("encode %s: %w", out, err)
	}
	if err := os.Rename(tmpName, out); err != nil {
		return Info{}, fmt.Errorf("encode %s: %w", out, err)
	}
	st, err := os.Stat(out)
	if err != nil {
		return Info{}, fmt.Errorf("encode %s: %w", out, err)
	}
	return Info{Path: out, Format: format, Duration: total, Frames: distinct(segs), Size: st.Size()}, nil
}

// codecs holds the encoder arguments per output format, tuned for speed:
// the content is mostly still pages, which compress well anyway.
var codecs = map[string][]string{
	"mp4": {"-c:v", "libx264", "-preset", "veryfast", "-crf", "26",
		"-movflags", "+faststart"}, // index first, so a browser plays it while loading
	"webm": {"-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
		"-row-mt", "1", "-b:v", "0", "-crf", "38"},
}

// filterChain fits every frame into w x h (the first frame's size, made
// even for yuv420p) keeping its aspect ratio, then resamples to a constant
// rate. A fixed size matters because the encoder cannot change size midway.
func filterChain(w, h int) string {
	w, h = max(2, w&^1), max(2, h&^1)
	return fmt.Sprintf("scale=%d:%d:force_original_aspect_ratio=decrease:force_divisible_by=2,"+
		"pad=%d:%d:(ow-iw)/2:(oh-ih)/2,setsar=1,fps=%d", w, h, w, h, fps)
}

func frameSize(path string) (w, h int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("read frame: %w", err)
	}
	defer func() { _ = f.Close() }() // read only: nothing to flush
	cfg, err := jpeg.DecodeConfig(f)
	if err != nil {
		return 0, 0, fmt.Errorf("frame %s: %w", filepath.Base(path), err)
	}
	return cfg.Width, cfg.Height, nil
}

// writeList writes an ffmpeg concat list next to the frames, so entries are
// plain relative names the demuxer's safe mode accepts. The last file is
// listed twice: the concat demuxer ignores the duration of the final entry.
func writeList(dir string, segs []segment) (string, error) {
	var b strings.Builder
	b.WriteString("ffconcat version 1.0\n")
	for _, s := range segs {
		fmt.Fprintf(&b, "file '%s'\nduration %s\n", s.file, seconds(s.dur))
	}
	fmt.Fprintf(&b, "file '%s'\n", segs[len(segs)-1].file)

	f, err := os.CreateTemp(dir, "concat-*.txt")
	if err != nil {
		return "", fmt.Errorf("write concat list: %w", err)
	}
	_, err = f.WriteString(b.String())
	if err = errors.Join(err, f.Close()); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("write concat list: %w", err)
	}
	return f.Name(), nil
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

func distinct(segs []segment) int {
	seen := make(map[string]bool, len(segs))
	for _, s := range segs {
		seen[s.file] = true
	}
	return len(seen)
}

// run runs ffmpeg and turns a failure into an error carrying the last lines
// it printed, which say what went wrong.
func run(ctx context.Context, bin string, args []string) error {
	var stderr tail
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = sandbox.Env() // no key or token of the server's
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second // bound Wait if a child keeps stderr open
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("ffmpeg: %w", ctxErr)
	}
	if msg := stderr.lastLines(5); msg != "" {
		return fmt.Errorf("ffmpeg: %w: %s", err, msg)
	}
	return fmt.Errorf("ffmpeg: %w", err)
}

// tail keeps the last stderrTail bytes written to it.
type tail struct{ buf []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTail; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) lastLines(n int) string {
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(t.buf, nil))), "\n")
	lines = lines[max(0, len(lines)-n):]
	return strings.TrimSpace(strings.Join(lines, " | "))
}
