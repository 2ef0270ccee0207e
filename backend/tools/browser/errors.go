package browser

import (
	"errors"
	"fmt"
)

// Codes of model-visible failures, besides tool.CodeInvalidArguments and
// tool.CodeCancelled.
const (
	// CodeNoPage: no browser is open for the run yet; browser_open first.
	CodeNoPage = "no_page"
	// CodeRefused: the agent's allowed domains do not include the URL's host.
	CodeRefused = "domain_refused"
	// CodeInvalidURL: not an http(s) URL (or about:blank).
	CodeInvalidURL = "invalid_url"
	// CodeNavigation: the page could not be loaded (DNS, connection refused).
	CodeNavigation = "navigation_failed"
	// CodeStaleRef: the ref is unknown or its element is gone; take a new
	// snapshot.
	CodeStaleRef = "stale_ref"
	// CodeNotFound: a selector matched nothing, or there is no page to go
	// back to.
	CodeNotFound = "not_found"
	// CodeUnsupported: the action does not apply to that element (fill on a
	// checkbox, select on a button).
	CodeUnsupported = "unsupported"
	// CodeOutside: a file for a file input is not in the workspace.
	CodeOutside = "outside_workspace"
	// CodeNoArtifacts: the call has nowhere to keep a screenshot.
	CodeNoArtifacts = "no_artifacts"
	// CodeBrowser: Chromium refused a command (the element cannot be
	// scrolled to, the node has no box); the message is Chromium's.
	CodeBrowser = "browser_error"
	// CodeStopped: the browser process stopped during the call; the next
	// call starts a new one.
	CodeStopped = "browser_stopped"
	// CodeUnavailable: no Chromium is installed; the message says what to
	// install.
	CodeUnavailable = "browser_unavailable"
)

// ErrNoChromium is returned by FindChromium when no browser is found; its
// message names what to install.
var ErrNoChromium = errors.New("no Chromium or Chrome found on PATH (looked for chromium, chromium-browser, google-chrome, google-chrome-stable): install chromium (apt install chromium) or set the browser's path in the configuration")

// ErrClosed is returned for calls after Manager.Close.
var ErrClosed = errors.New("browser manager closed")

// failure is a model-visible failure on its way out of a tool body.
type failure struct{ code, msg string }

func (f *failure) Error() string { return f.msg }

func fail(code, format string, args ...any) error {
	return &failure{code: code, msg: fmt.Sprintf(format, args...)}
}

// unavailableError is a browser that cannot be started for want of an
// installation: the model is told, and the run goes on without it.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string { return e.err.Error() }
func (e *unavailableError) Unwrap() error { return e.err }
