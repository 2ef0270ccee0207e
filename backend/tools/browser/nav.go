package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// navigate loads raw in the tab and waits, at most wait, for it to load. A
// page that does not answer or finish in time is not an error: the result
// says so and shows the page as it is.
func (s *session) navigate(ctx context.Context, raw string, wait time.Duration) (string, error) {
	start := time.Now()
	mark := s.loadMark()
	refusals := s.refusals()
	nctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	// Page.navigate answers once the response's headers arrived (the
	// navigation committed) or it failed; the load is waited for below.
	res, err := chromedp.Call(nctx, page.Navigate, page.NavigateParams{URL: raw})
	switch {
	case err != nil && nctx.Err() != nil && ctx.Err() == nil:
		return fmt.Sprintf("Opened %s, but the server did not answer within %s; the page is shown as it is.", raw, wait), nil
	case err != nil:
		return "", err
	case res.ErrorText != "" && s.refusals() > refusals:
		return "", fail(CodeRefused, "the page was not opened; the browser stays on %s", s.currentURL())
	case res.IsDownload:
		return "", fail(CodeNavigation, "%s is a file download, not a page; downloads are not allowed for this agent", raw)
	case res.ErrorText != "":
		return "", fail(CodeNavigation, "could not open %s: %s", raw, res.ErrorText)
	case res.LoaderID == "":
		return "Opened " + raw + " (same document).", nil
	}
	if s.waitLoad(ctx, mark, time.Second, wait-time.Since(start)) {
		return fmt.Sprintf("Opened %s; it is still loading after %s and is shown as it is.", raw, wait), nil
	}
	if s.refusals() > refusals {
		return "Opened " + raw + ", but a navigation it started was refused.", nil
	}
	return "Opened " + raw + ".", nil
}

// goBack goes one step back in the tab's history.
func (s *session) goBack(ctx context.Context) (string, error) {
	h, err := chromedp.Call(ctx, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return "", err
	}
	if h.CurrentIndex <= 0 || int(h.CurrentIndex) >= len(h.Entries)+1 {
		return "", fail(CodeNotFound, "there is no previous page to go back to")
	}
	entry := h.Entries[h.CurrentIndex-1]
	mark := s.loadMark()
	if _, err := chromedp.Call(ctx, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: entry.ID}); err != nil {
		return "", err
	}
	// The browser starts a history navigation itself (the page does not
	// request it), so its start is waited for as long as a requested one's.
	if s.waitLoad(ctx, mark, startGrace, DefaultLoadWait) {
		return fmt.Sprintf("Went back to %s; it is still loading after %s and is shown as it is.", entry.URL, DefaultLoadWait), nil
	}
	return "Went back to " + entry.URL + ".", nil
}
