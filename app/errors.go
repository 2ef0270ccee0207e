package app

import "errors"

var (
	// ErrNotBuilt is returned by Run in a binary built without the desktop tags.
	ErrNotBuilt = errors.New("built without desktop support; build with -tags desktop,production,webkit2_41,sqlite_fts5")
	// ErrNoDisplay is returned by Run when neither DISPLAY nor WAYLAND_DISPLAY is set.
	ErrNoDisplay = errors.New("no display: neither DISPLAY nor WAYLAND_DISPLAY is set")
	// ErrNoURL is returned by Run when Options.URL is empty or not an absolute http(s) URL.
	ErrNoURL = errors.New("an absolute http(s) URL of the server is required")
)
