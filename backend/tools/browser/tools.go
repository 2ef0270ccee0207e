package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/chromedp"

	"steward/backend/tool"
)

// Tool names.
const (
	Open       = "browser_open"
	Back       = "browser_back"
	Snapshot   = "browser_snapshot"
	Act        = "browser_act"
	Screenshot = "browser_screenshot"
	Extract    = "browser_extract"
)

// Navigation bounds.
const (
	// DefaultLoadWait is how long browser_open waits for the page to load
	// before it shows the page as it is; MaxLoadWait caps wait_ms.
	DefaultLoadWait = 15 * time.Second
	MaxLoadWait     = 60 * time.Second
	// navGrace is how long after an action a navigation it caused must be
	// requested to be waited for (see waitLoad); actLoadWait bounds that
	// wait.
	navGrace    = 50 * time.Millisecond
	actLoadWait = 10 * time.Second
)

type openArgs struct {
	URL    string `json:"url" jsonschema:"the address to open: an http or https URL (about:blank for an empty page)"`
	WaitMS int    `json:"wait_ms,omitempty" jsonschema:"how long to wait for the page to finish loading, in milliseconds; default 15000, at most 60000. A page still loading then is shown as it is"`
}

type backArgs struct{}

type snapshotArgs struct {
	Selector string `json:"selector,omitempty" jsonschema:"CSS selector of one element whose part of the page to show (for example main, form, #results); omit for the whole page"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"the most characters to return; default 8000, at most 100000"`
}

type actArgs struct {
	Action string `json:"action" jsonschema:"one of click, fill, type, press, select, check, uncheck, hover, scroll, wait"`
	Ref    string `json:"ref,omitempty" jsonschema:"the element's ref from the latest snapshot, such as e12; needed for click, fill, select, check, uncheck, hover"`
	Value  string `json:"value,omitempty" jsonschema:"fill: the text (or workspace file paths, one per line, for a file input); type: the text; press: a key such as Enter or Control+a; select: the option's label or value; scroll: up, down, top, bottom or pixels; wait: milliseconds or a text to wait for"`
}

type screenshotArgs struct {
	Ref      string `json:"ref,omitempty" jsonschema:"the ref of one element to capture; omit for the visible part of the page"`
	FullPage bool   `json:"full_page,omitempty" jsonschema:"capture the whole page, beyond the visible part"`
}

type extractArgs struct {
	Format   string `json:"format,omitempty" jsonschema:"text or markdown (default): markdown keeps headings, lists, links and tables"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"the most characters to return; default 10000, at most 100000"`
}

const openDescription = `Open a web page in this run's browser (a headless Chromium, started on first use) and return its accessibility snapshot: the page as indented lines of role, name and state, each element with a ref such as [ref=e12] that browser_act takes.
Only http and https URLs (and about:blank). When the agent is limited to some domains, other domains are refused, also when reached later by a redirect, a link, a frame or a new window.
The call waits for the page to load (wait_ms, default 15 s); a page still loading then is shown as it is, with a note.`

const backDescription = `Go back to the previous page in this run's browser, as the browser's Back button does, and return the new snapshot.`

const snapshotDescription = `Return the accessibility snapshot of the current page: role, name, state and a ref (e12) for each element. Refs stay the same while the page does not change, so a ref from an earlier snapshot of this page is still valid; after the page changes take a new snapshot.
A frame of the page's own site is shown under its iframe line, with refs; a frame of another site only by its address.
The snapshot is capped (max_chars, default 8000) with a note of what was cut; pass a CSS selector (main, form, #id) to see one part of a long page.`

const actDescription = `Do one thing on the current page and return what changed (URL, title, dialogs) and the new snapshot.
Actions: click (ref), fill (ref, value: replaces a text field's content; for a file input, workspace file paths, one per line), type (value, typed key by key into ref or the focused element), press (value: a key or chord such as Enter, Tab, Escape, ArrowDown, Control+a; into ref or the focused element), select (ref of a select, value: option label or value, one per line for several), check / uncheck (ref of a checkbox, radio button or switch), hover (ref), scroll (value: up, down, top, bottom or pixels; with ref: that element, or bring it into view), wait (value: milliseconds, or a text to wait for).
refs come from the latest snapshot; a ref that is gone gives an error that says to take a new snapshot. JavaScript dialogs (alert, confirm, prompt) are accepted and reported.`

const screenshotDescription = `Take a PNG screenshot of the current page (the visible part, the full page, or one element by ref). It is saved for the user to see; you receive a short description and the file's name, not the image. Prefer browser_snapshot to read the page.`

const extractDescription = `Return the readable content of the current page (its main or article element when it has one) as markdown (default) or plain text, capped (max_chars, default 10000). Use it to read articles and documentation; use browser_snapshot to act on the page.`

// keyed is a tool with its permission key (tool.Keyer).
type keyed struct {
	tool.Tool
	key func(env tool.Env, args json.RawMessage) string
}

// Key implements tool.Keyer: the host the call browses.
func (k keyed) Key(env tool.Env, args json.RawMessage) (string, bool) { return k.key(env, args), true }

var _ tool.Keyer = keyed{}

// Tools returns the browser tools. browser_open keys its permission on the
// URL's host, the others on the host of the page the run's browser shows
// ("" before browser_open).
func (m *Manager) Tools() []tool.Tool {
	page := func(env tool.Env, _ json.RawMessage) string { return m.currentHost(env.RunID) }
	target := func(_ tool.Env, raw json.RawMessage) string {
		var a openArgs
		if json.Unmarshal(raw, &a) != nil {
			return ""
		}
		return hostOf(strings.TrimSpace(a.URL))
	}
	return []tool.Tool{
		checkedOpen{keyed{tool.Must(tool.New(Open, openDescription, tool.RiskNetwork, m.open)), target}},
		keyed{tool.Must(tool.New(Back, backDescription, tool.RiskNetwork, m.back)), page},
		keyed{tool.Must(tool.New(Snapshot, snapshotDescription, tool.RiskRead, m.snapshotTool)), page},
		previewed{keyed{tool.Must(tool.New(Act, actDescription, tool.RiskWrite, m.actTool)), page}, m},
		previewed{keyed{tool.Must(tool.New(Screenshot, screenshotDescription, tool.RiskRead, m.screenshotTool)), page}, m},
		keyed{tool.Must(tool.New(Extract, extractDescription, tool.RiskRead, m.extractTool)), page},
	}
}

// call runs body on the run's session, one call at a time, with the
// session's notes (dialogs, refusals) and a restart note added to its
// output. start says whether a missing session is started (browser_open)
// or a failure (the other tools). The recorder, when on, ties the frames
// of the call to env.NodeID.
func (m *Manager) call(ctx context.Context, env tool.Env, start bool, body func(ctx context.Context, s *session) (tool.Result, error)) (tool.Result, error) {
	s, note, err := m.session(ctx, env, start)
	switch {
	case errors.Is(err, ErrClosed):
		return tool.Errorf(CodeUnavailable, "the browser tools are shut down"), nil
	case errors.As(err, new(*unavailableError)):
		return tool.Errorf(CodeUnavailable, "the browser is not available: "+err.Error()), nil
	case err != nil && ctx.Err() != nil:
		return tool.Errorf(tool.CodeCancelled, "cancelled while the browser started"), nil
	case err != nil:
		return tool.Result{}, fmt.Errorf("browser for run %s: %w", env.RunID, err)
	case s == nil:
		return tool.Errorf(CodeNoPage, "no page is open in this run: call browser_open first"), nil
	}
	stopped := tool.Errorf(CodeStopped, "the browser stopped (the run is ending, or Chromium exited); the next browser call starts a new one")
	if err := s.guardDomains(env.Domains); errors.Is(err, errStopped) || err != nil && s.dead() {
		return stopped, nil
	} else if err != nil {
		return tool.Result{}, err
	}
	if err := s.acquire(ctx); errors.Is(err, errStopped) {
		return stopped, nil
	} else if err != nil {
		return tool.Errorf(tool.CodeCancelled, "cancelled while another browser call ran"), nil
	}
	defer s.release()
	cctx, cancel := s.callContext(ctx)
	defer cancel()
	if s.rec != nil && env.NodeID != "" {
		s.rec.Begin(env.NodeID, time.Now())
		defer func() { s.rec.End(env.NodeID, time.Now()) }()
	}
	res, err := body(cctx, s)
	var f *failure
	var perr *cdproto.Error
	var jerr *chromedp.ExceptionError
	switch {
	case err == nil:
	case s.dead():
		res = tool.Errorf(CodeStopped, fmt.Sprintf("the browser stopped during the call (%s); the next browser call starts a new one", s.deathCause()))
	case ctx.Err() != nil:
		res = tool.Errorf(tool.CodeCancelled, "the browser call was cancelled")
	case errors.As(err, &f):
		res = tool.Errorf(f.code, f.msg)
	case errors.As(err, &perr):
		res = tool.Errorf(CodeBrowser, "the browser refused: "+perr.Message)
	case errors.As(err, &jerr):
		// The page changed what the tools' scripts rely on.
		res = tool.Errorf(CodeBrowser, "a script on the page failed: "+jerr.Error())
	case errors.Is(err, context.DeadlineExceeded):
		res = tool.Errorf(tool.CodeTimeout, "the browser did not answer in time")
	default:
		return tool.Result{}, err
	}
	if notes := s.takeNotes(); len(notes) > 0 {
		res.Output = "[" + strings.Join(notes, "]\n[") + "]\n" + res.Output
	}
	if note != "" {
		res.Output = note + "\n" + res.Output
	}
	return res, nil
}

func (m *Manager) open(ctx context.Context, env tool.Env, a openArgs) (tool.Result, error) {
	raw := strings.TrimSpace(a.URL)
	if res, ok := checkURL(raw, env.Domains); !ok {
		return res, nil
	}
	if a.WaitMS < 0 {
		return tool.Errorf(tool.CodeInvalidArguments, "wait_ms must not be negative"), nil
	}
	wait := DefaultLoadWait
	if a.WaitMS > 0 {
		wait = min(time.Duration(a.WaitMS)*time.Millisecond, MaxLoadWait)
	}
	return m.call(ctx, env, true, func(ctx context.Context, s *session) (tool.Result, error) {
		what, err := s.navigate(ctx, raw, wait)
		if err != nil {
			return tool.Result{}, err
		}
		return s.report(ctx, what, "", "")
	})
}

func (m *Manager) back(ctx context.Context, env tool.Env, _ backArgs) (tool.Result, error) {
	return m.call(ctx, env, false, func(ctx context.Context, s *session) (tool.Result, error) {
		before := s.currentURL()
		what, err := s.goBack(ctx)
		if err != nil {
			return tool.Result{}, err
		}
		return s.report(ctx, what, before, "")
	})
}

func (m *Manager) snapshotTool(ctx context.Context, env tool.Env, a snapshotArgs) (tool.Result, error) {
	if a.MaxChars < 0 || a.MaxChars > MaxSnapshotChars {
		return tool.Errorf(tool.CodeInvalidArguments, fmt.Sprintf("max_chars must be from 1 to %d", MaxSnapshotChars)), nil
	}
	return m.call(ctx, env, false, func(ctx context.Context, s *session) (tool.Result, error) {
		snap, err := s.snapshot(ctx, strings.TrimSpace(a.Selector), a.MaxChars)
		if err != nil {
			return tool.Result{}, err
		}
		return tool.Result{Output: snap}, nil
	})
}

func (m *Manager) actTool(ctx context.Context, env tool.Env, a actArgs) (tool.Result, error) {
	a.Action = strings.ToLower(strings.TrimSpace(a.Action))
	return m.call(ctx, env, false, func(ctx context.Context, s *session) (tool.Result, error) {
		beforeURL := s.currentURL()
		beforeTitle, _ := chromedp.Run(ctx, chromedp.Title())
		mark := s.loadMark()
		what, err := s.act(ctx, env, a)
		if err != nil {
			return tool.Result{}, err
		}
		if s.waitLoad(ctx, mark, navGrace, actLoadWait) {
			what += fmt.Sprintf(" The page is still loading after %s; it is shown as it is.", actLoadWait)
		}
		return s.report(ctx, what, beforeURL, beforeTitle)
	})
}

// checkURL refuses what browser_open must not open: anything but http(s)
// and about:blank (file:, javascript:, data:, chrome: reach what the agent
// must not), and hosts outside the agent's domains.
func checkURL(raw string, domains []string) (tool.Result, bool) {
	if raw == "about:blank" {
		return tool.Result{}, true
	}
	noScheme := tool.Errorf(CodeInvalidURL, fmt.Sprintf("%q has no scheme: give the full URL, such as https://%s", raw, raw))
	scheme, rest, found := strings.Cut(raw, ":")
	// "example.com", "localhost:8080/x" and "127.0.0.1:3000" lack a scheme;
	// "javascript:…" and "data:…" have one without "//".
	if !found || strings.ContainsAny(scheme, "./") || rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		return noScheme, false
	}
	if s := strings.ToLower(scheme); s != "http" && s != "https" {
		return tool.Errorf(CodeInvalidURL, fmt.Sprintf("%s: URLs cannot be opened: the browser opens http and https URLs only (and about:blank)", s)), false
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return tool.Errorf(CodeInvalidURL, fmt.Sprintf("%q is not a valid URL (%v): give an http or https URL such as https://example.com/", raw, err)), false
	case u.Host == "":
		return tool.Errorf(CodeInvalidURL, fmt.Sprintf("%q has no host: give an http or https URL such as https://example.com/", raw)), false
	case !allowed(domains, u.Host):
		return tool.Errorf(CodeRefused, refusal(raw, domains)+"; the page was not opened"), false
	}
	return tool.Result{}, true
}

// report is the result of a call that may have changed the page: what was
// done, the URL and title (with their former values when they changed) and
// the new snapshot.
func (s *session) report(ctx context.Context, what, beforeURL, beforeTitle string) (tool.Result, error) {
	settle(ctx)
	var b strings.Builder
	b.WriteString(what)
	b.WriteByte('\n')
	if now := s.currentURL(); beforeURL != "" && now != beforeURL {
		fmt.Fprintf(&b, "The URL changed from %s to %s.\n", beforeURL, now)
	}
	if beforeTitle != "" {
		if title, err := chromedp.Run(ctx, chromedp.Title()); err == nil && title != beforeTitle {
			fmt.Fprintf(&b, "The title changed from %q to %q.\n", beforeTitle, title)
		}
	}
	snap, err := s.snapshot(ctx, "", DefaultSnapshotChars)
	if err != nil {
		return tool.Result{}, err
	}
	b.WriteString(snap)
	return tool.Result{Output: b.String()}, nil
}

// settle lets the page paint what an action changed (two animation
// frames) before it is read; a page that paints nothing (hidden, busy) is
// not waited for long.
func settle(ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	_, _ = chromedp.Run(sctx, chromedp.Evaluate[chromedp.Void](
		`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`, chromedp.EvalAwaitPromise))
}
