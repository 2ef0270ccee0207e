// Package browser holds the browser tools (browser_open, browser_back,
// browser_snapshot, browser_act, browser_screenshot, browser_extract) and the
// Manager that keeps one headless Chromium per run for them.
//
// Sessions: a run's first browser_open starts Chromium with its own
// temporary profile (chromedp makes and removes it); two calls that race to
// start it share one start. A session is never shared between runs. It ends
// with Manager.EndRun (the run completed, failed or was cancelled) or
// Manager.Close (server shutdown); both return once the process and its
// children are gone. A browser that died between calls is replaced by the
// next call, which says so to the model.
//
// Calls: the tools of one run are carried out one at a time (a tab is one
// page; two actions at once would race). A call's context bounds the call,
// never the browser: the browser lives on the Manager's context, so a
// cancelled call leaves a usable session, and EndRun closes it.
//
// The model sees the page as an accessibility snapshot: indented lines of
// role, name and state, each element with a ref (e12) that browser_act
// takes. A ref is tied to the element's DOM node (backend node id) and keeps
// naming it while the document lives; refs are never reused within a session.
//
// Domains: when the agent may browse only some hosts, every document
// request of the browser (the tab, its frames in or out of process, the
// windows it opens, redirect hops) is paused by the browser target's Fetch
// interception and refused unless its host is allowed.
//
// Goroutines: each session runs a few event loops (dialogs, the domain
// guard, popups, the screencast), all ended and waited for when it closes.
package browser

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"steward/backend/tool"
	"steward/backend/tools/browser/video"
)

// Options configure a Manager.
type Options struct {
	// Chromium is the browser's path or command name; empty looks for
	// chromium, chromium-browser, google-chrome and google-chrome-stable on
	// PATH.
	Chromium string
	// Logf receives operational messages (no-sandbox, a browser that died);
	// nil uses the standard logger.
	Logf func(string, ...any)
	// Record captures the screencast of each run's browser into
	// <env.Artifacts>/frames, and EndRun encodes it as browser.mp4.
	Record bool
	// Downloads lets pages download files (into <env.Artifacts>/downloads);
	// false refuses every download.
	Downloads bool
}

// Manager keeps one browser session per run. Its methods are safe for
// concurrent use.
type Manager struct {
	o Options
	// ctx is the parent of every browser: chromedp ties a browser's life to
	// the context it was started with, and a browser must outlive the call
	// that started it. Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	runs   map[string]*slot
	closed bool

	sandboxOnce sync.Once
}

// slot is a run's session, or its start in progress.
type slot struct {
	ready chan struct{} // closed when the start ended
	s     *session      // set before ready closes; nil when the start failed
	err   error
}

var _ tool.RunEnder = (*Manager)(nil)

// NewManager returns a Manager with no sessions; browsers start on first use.
func NewManager(o Options) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{o: o, ctx: ctx, cancel: cancel, runs: map[string]*slot{}}
}

func (m *Manager) logf(format string, args ...any) {
	if m.o.Logf != nil {
		m.o.Logf(format, args...)
		return
	}
	log.Printf(format, args...)
}

// FindChromium returns the path of the browser to run: configured (a path
// or a command name) when set, else the first of chromium, chromium-browser,
// google-chrome and google-chrome-stable on PATH. The error names what to
// install (ErrNoChromium) or which configured path is wrong.
func FindChromium(configured string) (string, error) {
	if configured != "" {
		p, err := exec.LookPath(configured)
		if err != nil {
			return "", fmt.Errorf("configured browser %q cannot be run (%w): install chromium (apt install chromium) or fix the path", configured, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// session returns the run's session, starting one when start is true and
// there is none. A session whose browser died is closed and replaced (also
// when start is false: the model asked for the browser), and note says so.
// It returns a nil session and no error when start is false and the run has
// none.
func (m *Manager) session(ctx context.Context, env tool.Env, start bool) (s *session, note string, err error) {
	for {
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return nil, "", ErrClosed
		}
		sl := m.runs[env.RunID]
		if sl == nil {
			if !start && note == "" {
				m.mu.Unlock()
				return nil, "", nil
			}
			sl = &slot{ready: make(chan struct{})}
			m.runs[env.RunID] = sl
			m.mu.Unlock()
			s, err := m.start(ctx, env)
			m.mu.Lock()
			sl.s, sl.err = s, err
			gone := m.runs[env.RunID] != sl // EndRun or Close came during the start
			if err != nil || gone {
				if m.runs[env.RunID] == sl {
					delete(m.runs, env.RunID)
				}
			}
			close(sl.ready)
			m.mu.Unlock()
			if err == nil && gone {
				s.close()
				return nil, "", ErrClosed
			}
			return s, note, err
		}
		m.mu.Unlock()
		select {
		case <-sl.ready:
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
		if sl.err != nil {
			// The start another call made failed. When its own call was
			// cancelled, this call may try again.
			if (errors.Is(sl.err, context.Canceled) || errors.Is(sl.err, context.DeadlineExceeded)) && ctx.Err() == nil {
				continue
			}
			return nil, "", sl.err
		}
		if sl.s == nil {
			continue // closed by EndRun while starting
		}
		if !sl.s.dead() {
			return sl.s, note, nil
		}
		m.mu.Lock()
		if m.runs[env.RunID] == sl {
			delete(m.runs, env.RunID)
		}
		m.mu.Unlock()
		why := sl.s.deathCause()
		m.logf("browser: run %s: the browser (pid %d) stopped: %s; starting a new one", env.RunID, sl.s.pid, why)
		sl.s.close()
		note = fmt.Sprintf("[note: the browser had stopped (%s) and a new one was started: the previous page, its refs and its cookies are gone]", why)
	}
}

// lookup returns the run's live session, or nil.
func (m *Manager) lookup(runID string) *session {
	m.mu.Lock()
	defer m.mu.Unlock()
	sl := m.runs[runID]
	if sl == nil {
		return nil
	}
	select {
	case <-sl.ready:
		return sl.s
	default:
		return nil
	}
}

// EndRun closes the run's browser and waits until it is gone. When the
// session recorded a screencast (Options.Record), EndRun encodes it into
// <env.Artifacts>/browser.mp4 and returns it as a video artifact; without
// ffmpeg it returns the frames as an artifact of kind frames whose
// description says what to install. A run that never used the browser
// returns nothing. The error is the encoder's; the browser is closed
// anyway.
func (m *Manager) EndRun(ctx context.Context, env tool.Env) ([]tool.Artifact, error) {
	m.mu.Lock()
	sl := m.runs[env.RunID]
	delete(m.runs, env.RunID)
	m.mu.Unlock()
	var rec *video.Recorder
	if sl != nil {
		select {
		case <-sl.ready:
		case <-ctx.Done():
			// The starter sees its slot gone and closes what it started.
			return nil, ctx.Err()
		}
		if sl.s != nil {
			sl.s.close()
			rec = sl.s.rec
		}
	}
	if !m.o.Record || env.Artifacts == "" {
		return nil, nil
	}
	return m.encode(ctx, env, rec)
}

// Close closes every session (server shutdown) and waits until their
// browsers are gone. Recordings are left as frames; EndRun after a restart
// encodes them. Calls after Close fail.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	slots := m.runs
	m.runs = map[string]*slot{}
	m.mu.Unlock()
	// Cancel first: starts in progress abort at once instead of finishing
	// a browser only to close it, and every browser is killed at once
	// rather than asked in turn to shut down.
	m.cancel()
	var wg sync.WaitGroup
	for _, sl := range slots {
		wg.Go(func() {
			<-sl.ready
			if sl.s != nil {
				sl.s.close()
			}
		})
	}
	wg.Wait()
}

// LatestFrame returns the latest screencast frame (JPEG) of the run's live
// browser and when it was captured; ok is false when the run has no
// recording browser or no frame yet.
func (m *Manager) LatestFrame(runID string) ([]byte, time.Time, bool) {
	s := m.lookup(runID)
	if s == nil || s.rec == nil {
		return nil, time.Time{}, false
	}
	return s.rec.Latest()
}

// Sessions returns the number of runs with a browser open or starting.
func (m *Manager) Sessions() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.runs)
}

// currentHost is the host of the page the run's browser shows, "" without
// a session; browser tools other than browser_open key their permission on
// it.
func (m *Manager) currentHost(runID string) string {
	s := m.lookup(runID)
	if s == nil {
		return ""
	}
	return hostOf(s.currentURL())
}

// framesDir is where a run's screencast frames are kept.
func framesDir(artifacts string) string { return filepath.Join(artifacts, "frames") }

// exists reports whether p exists.
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
