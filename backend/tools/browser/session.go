package browser

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"steward/backend/sandbox"
	"steward/backend/tool"
	"steward/backend/tools/browser/video"
)

// Bounds of a session's life.
const (
	// startTimeout bounds Chromium's start (about 0.4 s on an idle machine,
	// 1.3 s measured on a busy one); a browser that takes longer is broken.
	startTimeout = 30 * time.Second
	// closeGrace is how long close lets Chromium shut down on its own before
	// it is killed; EndRun must return within about 2 s.
	closeGrace = 800 * time.Millisecond
	// The window size: wide enough for desktop layouts, and as wide as the
	// screencast's frames.
	viewportW, viewportH = 1280, 800
)

// session is one run's browser: a Chromium process with one tab.
type session struct {
	m     *Manager
	runID string

	// ctx is the tab's chromedp context. It ends when the session closes
	// or when the browser dies (chromedp cancels it).
	ctx         context.Context
	cancel      context.CancelFunc // the tab's: waits until the process is gone
	allocCancel context.CancelFunc
	pid         int
	target      target.ID

	sem       chan struct{} // one call at a time
	wg        sync.WaitGroup
	closeOnce sync.Once

	rec *video.Recorder // nil: not recording

	mu       sync.Mutex
	domains  []string
	guarding bool     // Fetch interception is on
	closed   bool     // close began: no goroutine may start
	notes    []string // what happened since the last call reported (dialogs, refusals)
	refused  int      // navigations the guard refused, ever
	url      string   // the main frame's URL
	loader   cdp.LoaderID
	refs     refMap
	load     loadState
	// seen is what the snapshots of the current document showed of each
	// ref (`button "Submit"`), and title the page's title then: what an
	// approval of an action on a ref shows the person (preview.go).
	seen  map[string]string
	title string
}

// loadState follows the main frame's navigations, from the tab's event
// loop.
type loadState struct {
	requested uint64 // frameRequestedNavigation: the page asked to navigate
	started   uint64 // frameStartedLoading
	stopped   uint64 // frameStoppedLoading: loaded, failed or refused
	within    uint64 // navigatedWithinDocument: a fragment or history.pushState
	loading   bool
	changed   chan struct{} // closed and replaced on every change
}

// start launches Chromium for env's run and prepares its tab.
func (m *Manager) start(ctx context.Context, env tool.Env) (*session, error) {
	exe, err := FindChromium(m.o.Chromium)
	if err != nil {
		return nil, &unavailableError{err}
	}
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(exe),
		// The defaults already turn off background networking; these stop
		// the rest of Chromium's own traffic (QUIC probes, component and
		// sync updates) so that the network the agent causes is its own.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(viewportW, viewportH),
		// The browser starts with the allowlisted environment only: no
		// provider key or server token of Steward's reaches it, or the
		// processes it starts.
		chromedp.NoInheritEnv,
		chromedp.Env(sandbox.Env()...),
	)
	if os.Geteuid() == 0 {
		// Chromium's sandbox refuses to run as root.
		opts = append(opts, chromedp.NoSandbox)
		m.sandboxOnce.Do(func() {
			m.logf("browser: running as root, so Chromium runs with --no-sandbox: web pages are not sandboxed from this user")
		})
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(m.ctx, opts...)
	tabCtx, tabCancel := chromedp.NewContext(allocCtx, chromedp.WithErrorf(func(f string, a ...any) { m.logf("browser: chromedp: "+f, a...) }))
	abort := func() {
		tabCancel()
		allocCancel()
	}

	// The first Do starts the browser and binds it to tabCtx, so it must
	// not run on the call's context; the call only bounds the wait.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(tabCtx) }()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case err = <-started:
	case <-ctx.Done():
		abort()
		<-started
		return nil, ctx.Err()
	case <-timer.C:
		abort()
		<-started
		return nil, fmt.Errorf("start %s: no answer within %s", exe, startTimeout)
	}
	if err != nil {
		abort()
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	c := chromedp.FromContext(tabCtx)
	s := &session{
		m: m, runID: env.RunID,
		ctx: tabCtx, cancel: tabCancel, allocCancel: allocCancel,
		target: c.Target.TargetID, sem: make(chan struct{}, 1),
		domains: slices.Clone(env.Domains),
		refs:    newRefMap(),
		load:    loadState{changed: make(chan struct{})},
	}
	if p := c.Browser.Process(); p != nil {
		s.pid = p.Pid
	}
	if err := s.prepare(env); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// prepare subscribes to the tab's events and sets the browser up: every
// subscription is made before what could trigger its first event.
func (s *session) prepare(env tool.Env) error {
	ctx := s.ctx
	if err := chromedp.Listen(ctx, s.onEvent); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	s.wg.Go(func() { s.dialogs(ctx, dialogs) })
	created := chromedp.BrowserEvents(ctx, target.TargetCreated)
	s.wg.Go(func() { s.popups(ctx, created) })

	dl := browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDeny}
	if s.m.o.Downloads && env.Artifacts != "" {
		dl = browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: filepath.Join(env.Artifacts, "downloads")}
	}
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, dl); err != nil {
		return fmt.Errorf("set download behaviour: %w", err)
	}
	if err := s.guardDomains(env.Domains); err != nil {
		return err
	}
	if s.m.o.Record && env.Artifacts != "" {
		if err := s.record(ctx, framesDir(env.Artifacts)); err != nil {
			return err
		}
	}
	return nil
}

// guardDomains records the run's allowed domains and turns the network
// guard on when they restrict anything. The domains come with every call;
// they are the agent's and do not change within a run, but a list that does
// is followed.
func (s *session) guardDomains(domains []string) error {
	s.mu.Lock()
	s.domains = slices.Clone(domains)
	if s.guarding || len(domains) == 0 {
		s.mu.Unlock()
		return nil
	}
	if s.closed {
		s.mu.Unlock()
		return errStopped
	}
	// Started under the lock that close takes before it waits, so that
	// the wait group never grows during the wait.
	s.guarding = true
	paused := chromedp.BrowserEvents(s.ctx, fetch.RequestPaused)
	s.wg.Go(func() { s.guard(s.ctx, paused) })
	s.mu.Unlock()
	if err := enableGuard(s.ctx); err != nil {
		return fmt.Errorf("enable the domain guard: %w", err)
	}
	return nil
}

func (s *session) allowedDomains() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.domains
}

// onEvent runs in the tab's event loop, in the order Chromium sent the
// events: it must return at once and send no command.
func (s *session) onEvent(ev any) {
	main := cdp.FrameID(s.target) // the main frame's id is the tab's
	switch ev := ev.(type) {
	case *page.EventFrameRequestedNavigation:
		if ev.FrameID == main {
			s.loadChanged(func(l *loadState) { l.requested++ })
		}
	case *page.EventFrameStartedLoading:
		if ev.FrameID == main {
			s.loadChanged(func(l *loadState) { l.started++; l.loading = true })
		}
	case *page.EventFrameStoppedLoading:
		if ev.FrameID == main {
			s.loadChanged(func(l *loadState) { l.stopped++; l.loading = false })
		}
	case *page.EventFrameNavigated:
		if ev.Frame != nil && ev.Frame.ParentID == "" {
			s.mu.Lock()
			s.url = ev.Frame.URL + ev.Frame.URLFragment
			s.loader = ev.Frame.LoaderID
			s.mu.Unlock()
		}
	case *page.EventNavigatedWithinDocument:
		if ev.FrameID == main {
			s.loadChanged(func(l *loadState) { l.within++ })
			s.mu.Lock()
			s.url = ev.URL
			s.mu.Unlock()
		}
	}
}

func (s *session) loadChanged(f func(*loadState)) {
	s.mu.Lock()
	f(&s.load)
	close(s.load.changed)
	s.load.changed = make(chan struct{})
	s.mu.Unlock()
}

// loadMark is where the main frame's navigations stand, to tell later
// whether one began and ended since.
type loadMark loadState

func (s *session) loadMark() loadMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return loadMark(s.load)
}

// startGrace is how long a navigation the page requested may take to
// start loading; one that does not (cancelled by the page, or a download)
// is not waited for.
const startGrace = time.Second

// waitLoad waits until a navigation that began after mark has finished
// (the main frame stopped loading: loaded, failed or refused). grace is how
// long to wait for one to be requested: an action that does not navigate
// returns then. A page asks for a navigation while it handles the input
// that caused it, so the request is seen by the time the action's last
// command returns, and grace can be short. limit bounds the whole wait. It
// reports whether the page is still loading when it gave up.
func (s *session) waitLoad(ctx context.Context, mark loadMark, grace, limit time.Duration) (stillLoading bool) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	pending := time.NewTimer(grace)
	defer pending.Stop()
	requested := false
	for {
		s.mu.Lock()
		l := s.load
		s.mu.Unlock()
		switch {
		case l.started > mark.started:
			if !l.loading && l.stopped > mark.stopped {
				return false
			}
		case l.within > mark.within:
			return false
		case l.requested > mark.requested && !requested:
			requested = true
			pending.Reset(startGrace)
		}
		var pendingC <-chan time.Time
		if l.started == mark.started {
			pendingC = pending.C
		}
		select {
		case <-l.changed:
		case <-pendingC:
			return false // nothing started: the action did not navigate
		case <-deadline.C:
			return true
		case <-ctx.Done():
			return l.loading
		}
	}
}

// note records something the next call result reports (a dialog, a
// refused navigation, a closed popup).
func (s *session) note(msg string) {
	s.mu.Lock()
	s.notes = append(s.notes, msg)
	s.mu.Unlock()
}

// refuse records a navigation the guard refused.
func (s *session) refuse(msg string) {
	s.mu.Lock()
	s.notes = append(s.notes, msg)
	s.refused++
	s.mu.Unlock()
}

func (s *session) refusals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

func (s *session) takeNotes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notes
	s.notes = nil
	return n
}

func (s *session) currentURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// dialogs answers JavaScript dialogs as soon as they open: an open dialog
// blocks the page and with it the action that opened it. Alerts, confirms
// and beforeunload prompts are accepted (the model asked for the action
// that raised them), prompts are accepted with their default text; the next
// result reports each one.
func (s *session) dialogs(ctx context.Context, events iter.Seq2[page.EventJavascriptDialogOpening, error]) {
	for ev, err := range events {
		if err != nil {
			return
		}
		article := "a"
		if ev.Type == page.DialogTypeAlert {
			article = "an"
		}
		s.note(fmt.Sprintf("%s %s dialog said %q; it was accepted", article, ev.Type, ev.Message))
		_, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true, PromptText: ev.DefaultPrompt})
		if err != nil && ctx.Err() == nil {
			s.m.logf("browser: run %s: answer dialog: %v", s.runID, err)
		}
	}
}

// dead reports whether the browser stopped without being asked to.
func (s *session) dead() bool { return s.ctx.Err() != nil }

// deathCause says why the browser stopped, for the model and the log.
// chromedp keeps the exit status to itself, so only the fact is known.
func (s *session) deathCause() string {
	return fmt.Sprintf("Chromium (pid %d) exited or lost its connection", s.pid)
}

// acquire waits for the session's turn; release ends it.
func (s *session) acquire(ctx context.Context) error {
	select {
	case s.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.ctx.Done():
		return errStopped
	}
}

func (s *session) release() { <-s.sem }

var errStopped = errors.New("the browser stopped")

// callContext derives a context from the tab's (chromedp finds the tab in
// it) that also ends with the call's context and its deadline, so a
// cancelled call stops waiting at once while the browser lives on.
func (s *session) callContext(call context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(s.ctx)
	stop := context.AfterFunc(call, func() { cancel(context.Cause(call)) })
	var cancelDeadline context.CancelFunc = func() {}
	if dl, ok := call.Deadline(); ok {
		ctx, cancelDeadline = context.WithDeadline(ctx, dl)
	}
	return ctx, func() {
		stop()
		cancelDeadline()
		cancel(nil)
	}
}

// close stops the browser and waits until its process, its children, its
// profile directory and the session's goroutines are gone.
func (s *session) close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		if s.rec != nil && !s.dead() {
			// The last frames are already stored; stopping the screencast
			// first keeps a frame from arriving while Chromium shuts down.
			sctx, cancel := context.WithTimeout(s.ctx, 200*time.Millisecond)
			_, _ = chromedp.Call(sctx, page.StopScreencast, cdp.Empty{})
			cancel()
		}
		// A graceful close lets Chromium end its children itself; one that
		// does not finish in time is killed (chromedp then kills what is
		// left under the profile directory).
		gctx, cancel := context.WithTimeout(s.ctx, closeGrace)
		if err := chromedp.Cancel(gctx); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			s.m.logf("browser: run %s: close: %v", s.runID, err)
		}
		cancel()
		s.cancel()
		s.allocCancel()
		s.wg.Wait()
	})
}
