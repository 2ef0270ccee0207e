package app

import (
	"context"
	"fmt"
	"net/url"
	"os"
)

// Defaults for Options fields left zero.
const (
	DefaultTitle  = "Steward"
	DefaultWidth  = 1280
	DefaultHeight = 860
)

// Options configures the window opened by Run. Zero fields take the defaults above; only URL
// is required.
type Options struct {
	// URL is the full loopback URL of the running server, including ?token=..., for example
	// http://127.0.0.1:41234/?token=abc. The window navigates to it once it has started.
	URL string
	// Title is the window title; "Steward" when empty.
	Title string
	// Width and Height are the initial window size in pixels; 1280x860 when zero.
	Width, Height int
	// Dialogs, when set, opens native dialogs for the rest of the program while the window
	// is up.
	Dialogs *Dialogs
	// Logf receives Wails' warnings and errors and the shell's own notes; nil discards them.
	Logf func(format string, args ...any)
	// Attention, when set, reports what waits on a person, calling show at first and on
	// every change until ctx ends. Run calls it once the window is up, on a goroutine of its
	// own, with a ctx that ends when the window closes, and waits for it to return. Each
	// report sets the window title to "(N) Title — N waiting" (Title alone for none) and
	// raises its Notice as a desktop notification. show must be called from that one
	// goroutine; it returns once the report is shown.
	Attention func(ctx context.Context, show func(Attention))
}

// withDefaults returns o with the zero fields filled in, or an error if URL is unusable.
func (o Options) withDefaults() (Options, error) {
	if o.URL == "" {
		return o, fmt.Errorf("window options: %w", ErrNoURL)
	}
	u, err := url.Parse(o.URL)
	if err != nil {
		return o, fmt.Errorf("window options: parse url: %w", err)
	}
	// Only http(s) makes sense: the point is to be same-origin with the server's API and
	// WebSocket. A relative or javascript: URL would leave the window on the bootstrap page.
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o, fmt.Errorf("window options: url %q: %w", u.Redacted(), ErrNoURL)
	}
	if o.Title == "" {
		o.Title = DefaultTitle
	}
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	if o.Height <= 0 {
		o.Height = DefaultHeight
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o, nil
}

// displayPresent reports whether a graphical session is reachable: GTK needs an X11 or a
// Wayland display and aborts the process (not an error) when it finds none.
func displayPresent() bool {
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}
