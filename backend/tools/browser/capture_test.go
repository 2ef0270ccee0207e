package browser

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"steward/backend/tool"
	"steward/backend/tools/browser/video"
)

func TestScreenshotIsAPNGArtifact(t *testing.T) {
	f := newFixture(t, Options{})
	snap := f.ok(Open, map[string]any{"url": f.srv.url("/big")})
	size := func(res tool.Result) (w, h int) {
		t.Helper()
		if res.IsError || len(res.Artifacts) != 1 {
			t.Fatalf("screenshot: %+v", res)
		}
		a := res.Artifacts[0]
		if a.Kind != tool.ArtifactScreenshot || a.Mime != "image/png" || !strings.HasPrefix(a.Name, "shots/") || !strings.Contains(res.Output, a.Name) {
			t.Errorf("artifact %+v for output %q", a, res.Output)
		}
		data, err := os.ReadFile(filepath.Join(f.env.Artifacts, filepath.FromSlash(a.Name)))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(data)) != a.Size {
			t.Errorf("size %d, artifact says %d", len(data), a.Size)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s is not a valid PNG: %v", a.Name, err)
		}
		if strings.Contains(res.Output, "\x89PNG") {
			t.Error("the output holds the image's bytes")
		}
		return img.Bounds().Dx(), img.Bounds().Dy()
	}
	vw, vh := size(f.call(Screenshot, map[string]any{}))
	f.env.NodeID = "n2"
	fw, fh := size(f.call(Screenshot, map[string]any{"full_page": true}))
	f.env.NodeID = "n3"
	ew, eh := size(f.call(Screenshot, map[string]any{"ref": ref(t, snap, `button "button 1"`)}))
	t.Logf("viewport %dx%d, full page %dx%d, element %dx%d", vw, vh, fw, fh, ew, eh)
	if vw < 800 || fh <= vh || ew >= vw || eh >= vh {
		t.Errorf("sizes: viewport %dx%d, full page %dx%d, element %dx%d", vw, vh, fw, fh, ew, eh)
	}
	// A second screenshot of one node does not overwrite the first.
	res := f.call(Screenshot, map[string]any{})
	if res.IsError || res.Artifacts[0].Name != "shots/n3-2.png" {
		t.Errorf("second shot of a node: %+v", res)
	}
	f.env.Artifacts = ""
	if res := f.call(Screenshot, map[string]any{}); res.Code != CodeNoArtifacts {
		t.Errorf("without an artifacts dir: %+v", res)
	}
}

func TestLargePageSnapshotIsCapped(t *testing.T) {
	f := newFixture(t, Options{})
	out := f.ok(Open, map[string]any{"url": f.srv.url("/big")})
	if len(out) > DefaultSnapshotChars+500 || !strings.Contains(out, "more characters cut; use selector to narrow it") {
		t.Errorf("default snapshot of the big page (%d chars):\n…%s", len(out), out[max(0, len(out)-300):])
	}
	all := f.ok(Snapshot, map[string]any{"max_chars": MaxSnapshotChars})
	if !strings.Contains(all, `button "button 1997"`) || strings.Contains(all, "characters cut") {
		t.Errorf("full snapshot (%d chars) lacks the last elements", len(all))
	}
	t.Logf("full snapshot of 2,000 elements: %d characters", len(all))

	f.ok(Open, map[string]any{"url": f.srv.url("/form")})
	part := f.ok(Snapshot, map[string]any{"selector": "form"})
	if strings.Contains(part, "heading") || !strings.Contains(part, `- form [ref=`) || !strings.Contains(part, `button "Send"`) {
		t.Errorf("snapshot of the form only:\n%s", part)
	}
	if res := f.call(Snapshot, map[string]any{"selector": "#nothing"}); res.Code != CodeNotFound {
		t.Errorf("selector that matches nothing: %+v", res)
	}
	if res := f.call(Snapshot, map[string]any{"selector": "[[["}); res.Code != CodeNotFound {
		t.Errorf("invalid selector: %+v", res)
	}
}

func TestExtractReadableContent(t *testing.T) {
	f := newFixture(t, Options{})
	f.ok(Open, map[string]any{"url": f.srv.url("/article")})
	md := f.ok(Extract, map[string]any{})
	for _, want := range []string{"# Go tips", "[contexts](" + f.srv.url("/ctx") + ")", "`errgroup`", "- one", "| a | b |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "© test") || strings.Contains(md, "Home") {
		t.Errorf("markdown holds what is outside the article:\n%s", md)
	}
	text := f.ok(Extract, map[string]any{"format": "text", "max_chars": 10})
	if !strings.Contains(text, "more characters cut") {
		t.Errorf("capped text:\n%s", text)
	}
}

func TestRecordingBecomesAVideoOfTheActions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Record: true})
	f.env.RunID = "rec"
	start := time.Now()
	f.env.NodeID = "open"
	snap := f.ok(Open, map[string]any{"url": f.srv.url("/counter")})
	add := ref(t, snap, `button "Add"`)
	// Five actions with idle gaps longer than an action's window, as a
	// model thinking between calls: the video must leave the gaps out.
	const gap = 4 * time.Second
	for i := range 5 {
		time.Sleep(gap)
		f.env.NodeID = "act" + strconv.Itoa(i)
		out := f.ok(Act, map[string]any{"action": "click", "ref": add})
		if !strings.Contains(out, ": "+strconv.Itoa(i+1)) && !strings.Contains(out, "text: "+strconv.Itoa(i+1)) {
			t.Errorf("click %d:\n%s", i, out)
		}
	}
	if _, ts, ok := f.m.LatestFrame(f.env.RunID); !ok || time.Since(ts) > time.Minute {
		t.Errorf("latest frame: ok=%v at %s", ok, ts)
	}
	// A video of the work so far, while the run goes on.
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		soFar, err := f.m.RecordingSoFar(context.Background(), f.env.RunID, f.env.Artifacts)
		if err != nil || soFar.Name != "browser-so-far.mp4" || soFar.Size == 0 || soFar.Kind != tool.ArtifactVideo {
			t.Errorf("RecordingSoFar = %+v, %v", soFar, err)
		}
	}
	if _, err := f.m.RecordingSoFar(context.Background(), "no-such-run", f.env.Artifacts); !errors.Is(err, ErrNoRecording) {
		t.Errorf("RecordingSoFar of a run without a browser: %v", err)
	}
	rec := f.m.lookup(f.env.RunID).rec
	var windows time.Duration
	for _, w := range rec.Windows() {
		windows += w.End.Sub(w.Start)
	}
	wall := time.Since(start)
	arts, err := f.reg.EndRun(context.Background(), f.env)
	if err != nil {
		t.Fatal(err)
	}
	frames, _ := filepath.Glob(filepath.Join(f.env.Artifacts, "frames", "*.jpg"))
	if len(frames) == 0 {
		t.Errorf("no frames in %s", filepath.Join(f.env.Artifacts, "frames"))
	}
	if len(arts) != 1 {
		t.Fatalf("artifacts: %+v", arts)
	}
	a := arts[0]
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if a.Kind != tool.ArtifactFrames || !strings.Contains(a.Description, "install ffmpeg") {
			t.Errorf("without ffmpeg: %+v", a)
		}
		return
	}
	if a.Kind != tool.ArtifactVideo || a.Name != "browser.mp4" || a.Mime != "video/mp4" || a.Size == 0 {
		t.Fatalf("video artifact: %+v", a)
	}
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Fatal("no ffprobe to measure the video: apt install ffmpeg (make test installs it)")
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", filepath.Join(f.env.Artifacts, a.Name)).Output()
	if err != nil {
		t.Fatal(err)
	}
	secs, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatal(err)
	}
	dur := time.Duration(secs * float64(time.Second))
	t.Logf("%d frames; run %s, action windows %s, video %s (%s)", len(frames), wall.Round(time.Millisecond), windows.Round(time.Millisecond), dur.Round(time.Millisecond), a.Description)
	if math.Abs(float64(dur-windows)) > float64(time.Second+windows/10) {
		t.Errorf("video lasts %s, the action windows %s", dur, windows)
	}
	// Each of the five gaps loses what lies outside the windows around it.
	if cut := 5 * (gap - video.Before - video.After); dur > wall-cut/2 {
		t.Errorf("video lasts %s of a %s run: the idle gaps were kept", dur, wall)
	}
}
