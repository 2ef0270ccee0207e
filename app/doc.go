// Package app is Steward's desktop shell: a native window around the same UI that web mode
// serves. It is the only package that imports Wails, and the Wails context never leaves it.
//
// The window does not serve the UI itself. The caller starts the ordinary HTTP server on a
// loopback port and passes its URL (with the ?token= that opens a session). Wails starts the
// webview on a tiny bootstrap page of its asset server, and the shell then has WebKit load
// the URL as if it had been typed into an address bar (navigate_linux.go says why not by
// script). From then on the UI is an ordinary same-origin page of the loopback server, so its
// fetches, cookie and WebSocket work exactly as in a browser. (WebSocket cannot pass through
// Wails' asset server, which answers a custom wails:// scheme.)
//
// Desktop support is compiled in only with the build tags desktop,production,webkit2_41 (see
// app_desktop.go); without them Available reports false and Run returns ErrNotBuilt, and the
// binary needs neither GTK nor WebKit.
//
// What a window does better than a browser tab: with Options.Attention, the window title counts
// the approvals and questions waiting on the person ("(2) Steward — 2 waiting"), and a new one
// raises a desktop notification through org.freedesktop.Notifications (by running gdbus, or
// notify-send; see notify.go). A machine without either, or without a notification service,
// still gets the title; the shell says once in the log that notifications are off.
//
// Run starts one goroutine, which navigates the window and closes it when the caller's context
// ends, and with Options.Attention a second one, which runs the attention feed until the window
// closes; both have ended by the time Run returns.
package app
