package browser

import (
	"context"
	"fmt"
	"iter"
	"net"
	"net/url"
	"path"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// allowed reports whether host (a URL's host, with or without a port) is
// matched by one of the globs; no globs allow every host. A glob matches
// the host name case-insensitively, "*" standing for any run of characters
// (dots included, so "*.example.com" covers a.b.example.com but not
// example.com itself); a glob with a port ("127.0.0.1:8080") matches the
// host and port.
func allowed(globs []string, host string) bool {
	if len(globs) == 0 {
		return true
	}
	name, port := splitHost(host)
	for _, g := range globs {
		g = strings.ToLower(strings.TrimSpace(g))
		if g == "" {
			continue
		}
		subject := name
		if gn, gp := splitHost(g); gp != "" {
			g, subject = gn+":"+gp, name+":"+port
		} else {
			g = gn
		}
		// path.Match's "*" stops at "/", which a host never has, so it spans
		// dots as the glob syntax promises.
		if ok, err := path.Match(g, subject); err == nil && ok {
			return true
		}
	}
	return false
}

// splitHost lowercases host and splits off its port; brackets of an IPv6
// literal are dropped.
func splitHost(host string) (name, port string) {
	host = strings.ToLower(host)
	if h, p, err := net.SplitHostPort(host); err == nil {
		return strings.Trim(h, "[]"), p
	}
	return strings.Trim(host, "[]"), ""
}

// hostOf returns the host of a URL for the domain guard and for permission
// keys: the lowercase host name without port, "" for URLs without one
// (about:blank, data:).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// refusal is the sentence a result carries when the guard stopped a
// navigation.
func refusal(rawURL string, globs []string) string {
	return fmt.Sprintf("navigation to %s was refused: this agent may only browse %s", rawURL, strings.Join(quoteAll(globs), ", "))
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// guard answers the requests the Fetch domain paused: document requests
// (top-level navigations, redirect hops, frames, popups) to a host the agent
// may not browse fail, everything else goes on. It runs until the session's
// context ends.
//
// A refused navigation fails with Aborted rather than BlockedByClient: an
// aborted navigation leaves the page where it was (the refs the model holds
// stay valid), where a blocked one commits Chrome's error page.
func (s *session) guard(ctx context.Context, paused iter.Seq2[fetch.EventRequestPaused, error]) {
	for ev, err := range paused {
		if err != nil {
			return
		}
		globs := s.allowedDomains()
		u, perr := url.Parse(ev.Request.URL)
		web := perr == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "ws" || u.Scheme == "wss")
		if web && ev.ResourceType == network.ResourceTypeDocument && !allowed(globs, u.Host) {
			msg := refusal(ev.Request.URL, globs)
			if ev.FrameID != cdp.FrameID(s.target) {
				// The tab's main frame has the tab's id; any other frame
				// is an iframe or a window the page opened.
				msg += " (it was asked for by a frame of the page or a window it opened; the page itself did not change)"
			}
			s.refuse(msg)
			_, err = chromedp.CallBrowser(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonAborted})
		} else {
			_, err = chromedp.CallBrowser(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
		if err != nil && ctx.Err() == nil {
			// The request may have gone (its frame was closed); the page
			// then no longer waits for it, so there is nothing to undo.
			s.m.logf("browser: run %s: answer paused request %s: %v", s.runID, ev.Request.URL, err)
		}
	}
}

// enableGuard turns on the interception of document requests; requests of
// other types (images, scripts, fetches) are not paused, so the guard costs
// one round trip per navigation only.
//
// The interception is the browser target's, not the tab's: the tab's Fetch
// sees only the requests its own renderer starts. With site isolation a
// cross-site frame is a target of its own (an OOPIF), and a navigation in it
// (a link, location, a redirect) is started by that target; so is the first
// navigation of a popup. The browser's Fetch sees the requests of every
// target of the browser, which is the run's alone, as they are made: there
// is no gap between a target's creation and its interception, as there
// would be with Fetch enabled per attached target (and chromedp drops the
// messages of sessions it did not attach itself, so it could not answer
// them anyway).
func enableGuard(ctx context.Context) error {
	_, err := chromedp.CallBrowser(ctx, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageRequest}},
	})
	return err
}

// popups closes the tabs and windows the page opens (window.open, links
// with target=_blank): the tools drive one tab, and a tab they cannot see
// would act out of the model's view. (The domain guard covers such a tab
// too, until it is closed.) The model is told by a note where the popup
// wanted to go, when that is known yet; browser_open can follow it.
func (s *session) popups(ctx context.Context, created iter.Seq2[target.EventTargetCreated, error]) {
	for ev, err := range created {
		if err != nil {
			return
		}
		info := ev.TargetInfo
		if info == nil || info.Type != "page" || info.TargetID == s.target {
			continue
		}
		if where := info.URL; where == "" || where == "about:blank" {
			// window.open's target is created blank and navigated after:
			// where it wanted to go is not known yet.
			s.note("the page opened a new window; it was closed (only one tab is driven)")
		} else {
			s.note(fmt.Sprintf("the page opened %s in a new window; it was closed (only one tab is driven): use browser_open to go there", where))
		}
		if _, err := chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: info.TargetID}); err != nil && ctx.Err() == nil {
			s.m.logf("browser: run %s: close popup %s: %v", s.runID, info.TargetID, err)
		}
	}
}
