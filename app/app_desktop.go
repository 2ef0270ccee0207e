//go:build desktop

package app

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/logger"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// icon is the window icon: build/appicon.png scaled to 256 px (go:embed cannot reach build/).
//
//go:embed icon.png
var icon []byte

// Available reports whether Run can open a window: the binary has the desktop tags and a
// display is present.
func Available() bool { return displayPresent() }

// Run opens the window on opts.URL and blocks until the person closes it or ctx is
// cancelled, in which case it closes the window itself. Both return nil; the caller tells
// them apart by ctx.Err(). Errors mean the window could not be opened: ErrNoDisplay, ErrNoURL,
// or a Wails start-up failure.
//
// Run may be called once per process: GTK is initialised once and Wails keeps global state.
// Wails locks the calling goroutine to its OS thread and runs the GTK main loop on it, so call
// Run from the main goroutine and do other work elsewhere. Wails also installs a SIGINT and
// SIGTERM handler, left in place after Run returns, that closes the window.
//
// How the UI gets into the window: Wails' webview starts on its own wails:// asset server,
// which serves only bootstrap.html. As soon as the GTK main loop runs, the shell has WebKit
// load opts.URL directly (loadURI, navigate_linux.go), as if typed into an address bar. From
// then on the webview shows an ordinary http://127.0.0.1 page, same-origin with the API and
// its WebSocket, which the asset server could not carry. A load from the bootstrap page's
// script, or from WindowExecJS in OnDomReady, would work too but would be cross-site and so
// lose a SameSite=Strict session cookie (see navigate_linux.go); OnDomReady would also fire
// on every finished load, not once. Wails v2.9.2 installs no navigation policy on Linux, so
// nothing stops the webview from leaving wails://.
func Run(ctx context.Context, opts Options) error {
	if !displayPresent() {
		return ErrNoDisplay
	}
	if ctx.Err() != nil {
		return nil // cancelled already: as if opened and closed at once
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return err
	}
	handler, err := bootstrapHandler(opts.Title, opts.URL, !nativeNavigation)
	if err != nil {
		return err
	}

	// Wails hands its context (which its runtime calls need) to OnStartup, on a goroutine of
	// its own, just before it loads its start page and enters the GTK main loop; OnShutdown
	// runs after the main loop has returned.
	started := make(chan context.Context, 1)
	exited := make(chan struct{})
	var exitOnce sync.Once
	markExited := func() { exitOnce.Do(func() { close(exited) }) }
	returned := make(chan struct{})
	superviseDone := make(chan struct{})
	go func() {
		defer close(superviseDone)
		defer func() {
			if p := recover(); p != nil {
				opts.Logf("desktop: panic in the window supervisor: %v", p)
			}
		}()
		supervise(ctx, opts, started, exited, returned)
	}()
	defer func() { <-superviseDone }()
	defer close(returned)

	err = wails.Run(&options.App{
		Title:            opts.Title,
		Width:            opts.Width,
		Height:           opts.Height,
		MinWidth:         640,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: background.R, G: background.G, B: background.B, A: 255}, // A:1 would be see-through
		AssetServer:      &assetserver.Options{Handler: handler},
		Logger:           logAdapter{opts.Logf},
		// Wails' INFO lines are start-up chatter; warnings and errors are worth keeping.
		LogLevel:           logger.WARNING,
		LogLevelProduction: logger.WARNING,
		OnStartup:          func(wctx context.Context) { started <- wctx },
		OnShutdown:         func(context.Context) { markExited() },
		Linux: &linux.Options{
			Icon: icon,
			// Meant to set WM_CLASS for StartupWMClass in build/linux/steward.desktop, but
			// Wails 2.9.2 sets it after gtk_init, too late for GLib 2.74: WM_CLASS comes
			// from the executable's name, which is steward anyway.
			ProgramName: "steward",
			// Must be set explicitly once Linux options are given: the zero value is
			// Always, which leaves the window blank on many drivers (wails#2977, #3283).
			// Wails itself defaults to Never when Linux is nil; the UI is DOM and SVG.
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	markExited() // OnShutdown is skipped when start-up fails
	if err != nil {
		return fmt.Errorf("desktop window: %w", err)
	}
	return nil
}

// supervise sends the window to the UI once Wails has started, keeps its title and
// notifications up to date (see attendWindow), then closes the window when ctx is cancelled.
// It returns when the main loop has exited and the attention feed has ended, or when Run
// returns without Wails having started.
func supervise(ctx context.Context, opts Options, started <-chan context.Context, exited, returned <-chan struct{}) {
	var wctx context.Context
	select {
	case wctx = <-started:
	case <-returned: // start-up failed
		return
	}

	if opts.Dialogs != nil {
		opts.Dialogs.attach(wctx)
		defer opts.Dialogs.attach(nil) // no dialog once the main loop is gone
	}

	actx, stopAttention := context.WithCancel(ctx)
	attending := attendWindow(actx, opts, wctx)
	defer func() { stopAttention(); <-attending }()

	if nativeNavigation {
		if err := loadURI(opts.URL, exited); err != nil {
			// Second best: navigate by script. Works unless the session cookie is
			// SameSite=Strict; say so, since the window may then show "unauthorized".
			opts.Logf("desktop: %v; navigating by script instead (a SameSite=Strict session cookie will not survive it)", err)
			js, _ := json.Marshal(opts.URL) // a string always marshals; JSON is a JS literal
			wailsruntime.WindowExecJS(wctx, "location.replace("+string(js)+")")
		}
	}

	select {
	case <-ctx.Done():
	case <-exited:
		return
	}
	opts.Logf("desktop: %v; closing the window", context.Cause(ctx))
	// A quit that lands before gtk_main has started is lost (GTK says "gtk_main_quit:
	// assertion 'main_loops != NULL' failed"), so repeat it until the loop has exited.
	// 200 ms: long enough not to spin, short enough that the lost quit goes unnoticed.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		wailsruntime.Quit(wctx)
		select {
		case <-exited:
			return
		case <-tick.C:
		}
	}
}

// attendWindow runs opts.Attention, if set, on a goroutine of its own until ctx ends: each
// report sets the window title and raises its notice. The returned channel is closed when
// the goroutine has ended. WindowSetTitle may be called from any goroutine: Wails hands the
// change to the GTK main loop (and drops it once the loop has ended).
func attendWindow(ctx context.Context, opts Options, wctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	if opts.Attention == nil {
		close(done)
		return done
	}
	n := newNotifier(exec.LookPath)
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				opts.Logf("desktop: panic in the attention feed: %v; the window title stops counting", p)
			}
		}()
		setTitle := func(title string) { wailsruntime.WindowSetTitle(wctx, title) }
		attend(ctx, opts.Attention, opts.Title, setTitle, n, opts.Logf)
	}()
	return done
}

// logAdapter passes Wails' log lines to Options.Logf. Wails only calls the levels at or above
// LogLevelProduction; after Fatal, Wails exits the process itself.
type logAdapter struct{ logf func(string, ...any) }

var _ logger.Logger = logAdapter{}

func (l logAdapter) Print(m string)   { l.logf("wails: %s", m) }
func (l logAdapter) Trace(m string)   { l.logf("wails trace: %s", m) }
func (l logAdapter) Debug(m string)   { l.logf("wails debug: %s", m) }
func (l logAdapter) Info(m string)    { l.logf("wails info: %s", m) }
func (l logAdapter) Warning(m string) { l.logf("wails warning: %s", m) }
func (l logAdapter) Error(m string)   { l.logf("wails error: %s", m) }
func (l logAdapter) Fatal(m string)   { l.logf("wails fatal: %s", m) }
