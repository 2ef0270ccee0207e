package video_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// t0 is the start of every synthetic recording.
var t0 = time.UnixMilli(1_700_000_000_000)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// palette gives each action of a scenario its own background colour, so a
// test can tell from the video which action a moment belongs to.
var palette = []color.RGBA{
	{200, 40, 40, 255}, {40, 200, 40, 255}, {40, 40, 200, 255},
	{200, 200, 40, 255}, {40, 200, 200, 255}, {120, 120, 120, 255},
}

// frameJPEG draws a w x h frame in bg with a white square whose position
// moves with i, as a page repainting would.
func frameJPEG(tb testing.TB, w, h int, bg color.RGBA, i int) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, bg)
		}
	}
	sx, sy := 40+(i*7)%(w-80), 40+(i*5)%(h-80)
	for y := sy; y < sy+30; y++ {
		for x := sx; x < sx+30; x++ {
			img.SetRGBA(x, y, color.RGBA{255, 255, 255, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func needFFmpeg(tb testing.TB) {
	tb.Helper()
	for _, bin := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(bin); err != nil {
			tb.Fatalf("%s not on PATH: apt install ffmpeg (make test installs it)", bin)
		}
	}
}

// probe returns ffprobe's view of a video: duration in seconds, width, height.
func probe(t *testing.T, path string) (dur float64, w, h int) {
	t.Helper()
	out := ffprobe(t, "-show_entries", "format=duration", "-of", "csv=p=0", path)
	dur, err := strconv.ParseFloat(out, 64)
	if err != nil {
		t.Fatalf("ffprobe duration %q: %v", out, err)
	}
	size := strings.Split(ffprobe(t, "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", path), ",")
	if len(size) != 2 {
		t.Fatalf("ffprobe size %q", size)
	}
	w, _ = strconv.Atoi(size[0])
	h, _ = strconv.Atoi(size[1])
	return dur, w, h
}

func ffprobe(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.CommandContext(context.Background(), "ffprobe", append([]string{"-v", "error"}, args...)...).Output()
	if err != nil {
		t.Fatalf("ffprobe %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// pixelAt decodes the video at second sec and returns the colour of its
// 16x16 square at x, y (pick a spot away from the moving square).
func pixelAt(t *testing.T, path string, sec float64, x, y int) color.RGBA {
	t.Helper()
	out, err := exec.CommandContext(context.Background(), "ffmpeg", "-v", "error", "-ss", strconv.FormatFloat(sec, 'f', 3, 64),
		"-i", path, "-frames:v", "1", "-vf", fmt.Sprintf("crop=16:16:%d:%d,scale=1:1", x, y), "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil || len(out) < 3 {
		t.Fatalf("decode %s at %.3fs: %v (%d bytes)", path, sec, err, len(out))
	}
	return color.RGBA{out[0], out[1], out[2], 255}
}

func near(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { return abs(int(x)-int(y)) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
