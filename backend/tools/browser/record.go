package browser

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"steward/backend/tool"
	"steward/backend/tools/browser/video"
)

// Screencast settings: JPEG at quality 70 keeps a frame near 50 KB at
// 1280 px wide, legible text at a size a recording of many minutes can
// afford.
const (
	screencastQuality  = 70
	screencastMaxWidth = 1280
	videoName          = "browser.mp4"
)

// record starts the screencast into a recorder whose frames go to dir.
// Frames arrive only when the page repaints; every frame is acknowledged, or
// Chromium stops sending them.
func (s *session) record(ctx context.Context, dir string) error {
	rec, err := video.NewRecorder(dir)
	if err != nil {
		return fmt.Errorf("recorder: %w", err)
	}
	s.rec = rec
	frames := chromedp.Events(ctx, page.ScreencastFrame)
	s.wg.Go(func() { s.screencast(ctx, frames) })
	_, err = chromedp.Call(ctx, page.StartScreencast, page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: new(int64(screencastQuality)),
		MaxWidth: screencastMaxWidth, MaxHeight: screencastMaxWidth, EveryNthFrame: 1,
	})
	if err != nil {
		return fmt.Errorf("start screencast: %w", err)
	}
	return nil
}

func (s *session) screencast(ctx context.Context, frames iter.Seq2[page.EventScreencastFrame, error]) {
	for ev, err := range frames {
		if err != nil {
			return
		}
		ts := time.Now()
		if ev.Metadata != nil && ev.Metadata.Timestamp > 0 {
			sec, frac := math.Modf(float64(ev.Metadata.Timestamp))
			ts = time.Unix(int64(sec), int64(frac*1e9))
		}
		if err := s.rec.Frame(ts, ev.Data); err != nil {
			s.m.logf("browser: run %s: store screencast frame: %v", s.runID, err)
		}
		if _, err := chromedp.Call(ctx, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: ev.SessionID}); err != nil && ctx.Err() == nil {
			s.m.logf("browser: run %s: acknowledge screencast frame: %v", s.runID, err)
		}
	}
}

// encode turns the run's recording into <env.Artifacts>/browser.mp4. rec is
// the closed session's recorder, or nil: then frames left by an earlier
// process (a restart before the run ended) are encoded if there are any.
func (m *Manager) encode(ctx context.Context, env tool.Env, rec *video.Recorder) ([]tool.Artifact, error) {
	dir := framesDir(env.Artifacts)
	out := filepath.Join(env.Artifacts, videoName)
	if rec == nil {
		if !exists(dir) || exists(out) {
			return nil, nil
		}
		r, err := video.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("reopen the recording of run %s: %w", env.RunID, err)
		}
		rec = r
	}
	if rec.Frames() == 0 {
		return nil, nil
	}
	info, err := rec.Encode(ctx, out)
	switch {
	case errors.Is(err, video.ErrNoFrames):
		return nil, nil
	case errors.Is(err, video.ErrNoFFmpeg):
		return []tool.Artifact{{
			Name: "frames", Kind: tool.ArtifactFrames, Mime: "image/jpeg", Size: dirSize(dir),
			Description: fmt.Sprintf("%d screencast frames of the run's browser, not made into a video: %v", rec.Frames(), err),
		}}, nil
	case err != nil:
		return nil, fmt.Errorf("encode the recording of run %s: %w", env.RunID, err)
	}
	return []tool.Artifact{{
		Name: videoName, Kind: tool.ArtifactVideo, Mime: "video/mp4", Size: info.Size,
		Description: fmt.Sprintf("recording of the run's browser: %s of actions, %d frames (idle time between actions cut)", info.Duration.Round(100*time.Millisecond), info.Frames),
	}}, nil
}

// dirSize is the total size of the files directly in dir.
func dirSize(dir string) int64 {
	var n int64
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// soFarName is the video of a recording made before the run ended.
const soFarName = "browser-so-far.mp4"

// ErrNoRecording is returned by RecordingSoFar for a run whose browser is
// not open or not recorded.
var ErrNoRecording = errors.New("no recording browser")

// RecordingSoFar makes a video of the run's live recording as it is now
// (<dir>/browser-so-far.mp4, replaced each time), for a person who wants to
// see the work before the run ends; the run's own video is still made when
// it ends. dir is the run's artifacts folder.
func (m *Manager) RecordingSoFar(ctx context.Context, runID, dir string) (tool.Artifact, error) {
	s := m.lookup(runID)
	if s == nil || s.rec == nil || dir == "" {
		return tool.Artifact{}, fmt.Errorf("run %s: %w (the browser records while a run uses it)", runID, ErrNoRecording)
	}
	info, err := s.rec.Encode(ctx, filepath.Join(dir, soFarName))
	if err != nil {
		return tool.Artifact{}, fmt.Errorf("run %s: %w", runID, err)
	}
	return tool.Artifact{Name: soFarName, Kind: tool.ArtifactVideo, Mime: "video/mp4", Size: info.Size,
		Description: fmt.Sprintf("the run's browser so far: %s of actions, %d frames", info.Duration.Round(100*time.Millisecond), info.Frames)}, nil
}
