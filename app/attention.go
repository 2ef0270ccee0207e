package app

import (
	"context"
	"fmt"
	"time"
)

// Attention is what waits on a person, as Options.Attention reports it. The shell declares
// it rather than importing the backend's, so that app depends on nothing but Wails; the
// composition root adapts one to the other.
type Attention struct {
	// Pending counts the approvals and questions waiting for an answer, across runs.
	Pending int
	// Notice, when set, is raised as a desktop notification: something new is waiting.
	Notice *Notice
}

// Notice is a desktop notification: a one-line title and a short plain-text body.
type Notice struct {
	Title, Body string
}

// notifyTimeout bounds one notification. Reports wait for it (they are handled in order on
// one goroutine), so a notification service that hangs must not hold the title back long.
const notifyTimeout = 3 * time.Second

// windowTitle is the window's title with pending interactions waiting: the count comes first
// so that it survives a title cut short in a task bar.
func windowTitle(base string, pending int) string {
	if pending <= 0 {
		return base
	}
	return fmt.Sprintf("(%d) %s — %d waiting", pending, base, pending)
}

// attend runs source until ctx ends, showing each report: the count in the window title
// through setTitle, the notice through n. A notification that fails is logged the first time
// only: without a notification service the title still shows the count, and saying so on
// every request would only fill the log.
func attend(ctx context.Context, source func(context.Context, func(Attention)), base string,
	setTitle func(string), n notifier, logf func(string, ...any)) {
	shown, warned := -1, false
	source(ctx, func(a Attention) {
		if a.Pending != shown {
			setTitle(windowTitle(base, a.Pending))
			shown = a.Pending
		}
		if a.Notice == nil || ctx.Err() != nil {
			return
		}
		nctx, cancel := context.WithTimeout(ctx, notifyTimeout)
		defer cancel()
		if err := n.Notify(nctx, *a.Notice); err != nil && !warned && ctx.Err() == nil {
			warned = true
			logf("desktop: cannot raise a desktop notification (%v); the window title still counts what waits. Not repeated.", err)
		}
	})
}
