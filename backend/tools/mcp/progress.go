package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/tool"
)

// Progress: a call made with tool.Env.Progress set carries a progress
// token in its _meta (the MCP spec's way of asking for progress), one of
// the Manager's own, never reused. The server's notifications/progress
// with that token go to the call's callback, in the order they came; one
// with a token the Manager did not give, given to another session's call,
// or of a call that has ended, is dropped: a server can report on nothing
// but its own calls in flight.
//
// The SDK hands a notification to its handler on a goroutine of its own,
// after its reader has gone on, so the answer to a call can overtake the
// last reports the server sent just before it (seen in one call of three
// that sent a burst and answered). Where the SDK asks nothing of a
// connection but the Connection interface (stdio, sse), Steward reads the
// reports itself as the reader meets them (tapConn), before the answer
// that follows: in order with it, at no cost. A streamable HTTP
// connection cannot be wrapped (the SDK tells it of the session through a
// method of its own), so there the end of a call waits until no report
// came for progressQuiet since the answer, at most progressSettle.

// maxProgressMessage caps the text of one progress report: it is the
// server's, of any length it likes, and a line on the call's card.
const maxProgressMessage = 300

// progressQuiet and progressSettle bound what the end of a streamable
// HTTP call waits for its last reports: the SDK's handler takes a report
// it has read within microseconds when it is not starved, and an HTTP
// call has a network's round trip already.
const (
	progressQuiet  = 10 * time.Millisecond
	progressSettle = 250 * time.Millisecond
)

// methodProgress is the notification's method.
const methodProgress = "notifications/progress"

// watch is one call's interest in progress.
type watch struct {
	src   any  // where the call's reports come from: its session's tapConn, or the SDK's session
	exact bool // src is a tapConn: every report is in before the answer
	f     func(tool.Progress)

	mu    sync.Mutex // held while f runs: none runs after stop returns
	done  bool
	heard time.Time // when the last report came
}

// watchProgress registers f for the progress of a call on ss, and
// returns the token to send with it and the function that ends the
// call's interest, once the reports still under way are in (see
// progressSettle); ctx ending skips that wait.
func (m *Manager) watchProgress(ss *session, f func(tool.Progress)) (token string, stop func(ctx context.Context)) {
	w := &watch{src: ss.ClientSession, f: f}
	if ss.tap != nil {
		w.src, w.exact = ss.tap, true
	}
	m.mu.Lock()
	m.tokens++
	token = fmt.Sprintf("steward-%d", m.tokens)
	m.watches[token] = w
	m.mu.Unlock()
	return token, func(ctx context.Context) {
		if !w.exact {
			w.settle(ctx)
		}
		m.mu.Lock()
		delete(m.watches, token)
		m.mu.Unlock()
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	}
}

// settle waits until no report came for progressQuiet since the answer
// (now), at most progressSettle.
func (w *watch) settle(ctx context.Context) {
	answered := time.Now()
	deadline := answered.Add(progressSettle)
	for {
		w.mu.Lock()
		last := w.heard
		w.mu.Unlock()
		if last.Before(answered) {
			last = answered
		}
		wait := min(time.Until(last.Add(progressQuiet)), time.Until(deadline))
		if wait <= 0 || ctx.Err() != nil {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// progress is the client's ProgressNotificationHandler: the reports of a
// session that is not tapped (streamable HTTP).
func (m *Manager) progress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req != nil && req.Params != nil {
		m.deliver(req.Session, req.Params)
	}
}

// deliver hands a report that came from src to the call whose token it
// names, when that call went out there.
func (m *Manager) deliver(src any, params *sdk.ProgressNotificationParams) {
	token, ok := params.ProgressToken.(string) // Steward's tokens are strings: a number is none of them
	if !ok {
		return
	}
	m.mu.Lock()
	w := m.watches[token]
	m.mu.Unlock()
	if w == nil || w.src != src {
		return
	}
	p, ok := progressOf(params)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.heard = time.Now()
	w.f(p)
}

// tapTransport is a transport whose connection is tapped (tapConn).
type tapTransport struct {
	sdk.Transport
	m    *Manager
	conn *tapConn // set by Connect
}

func (t *tapTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &tapConn{Connection: c, m: t.m}
	return t.conn, nil
}

// tapConn reads the server's progress reports off the connection as the
// SDK's reader meets them, hands them to their calls at once and keeps
// them from the SDK, so that each is in before the answer read after it.
// The callbacks run on the reader's goroutine: they are quick (the
// engine's throttle, an event handed to the store).
type tapConn struct {
	sdk.Connection
	m *Manager
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return msg, err
		}
		r, ok := msg.(*jsonrpc.Request)
		if !ok || r.IsCall() || r.Method != methodProgress {
			return msg, nil
		}
		var p sdk.ProgressNotificationParams
		if json.Unmarshal(r.Params, &p) == nil { // a report that cannot be read is dropped, as the SDK would
			c.m.deliver(c, &p)
		}
	}
}

// progressOf is what Steward keeps of a report: progress and total as
// numbers a reader can show (a total of 0 or less is unknown), and the
// message on one line, capped. ok is false for a report that says nothing
// usable (a progress that is no finite number).
func progressOf(p *sdk.ProgressNotificationParams) (tool.Progress, bool) {
	if math.IsNaN(p.Progress) || math.IsInf(p.Progress, 0) {
		return tool.Progress{}, false
	}
	out := tool.Progress{Progress: p.Progress, Message: oneLine(p.Message, maxProgressMessage)}
	if p.Total > 0 && !math.IsInf(p.Total, 0) {
		out.Total = p.Total
	}
	return out, true
}

// oneLine is s with its invalid bytes dropped, its runs of white space and
// control characters made one space, trimmed, and cut to at most max bytes
// (at a character's start, with an ellipsis).
func oneLine(s string, max int) string {
	s = strings.ToValidUTF8(s, "")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
		if b.Len() > max {
			break
		}
	}
	out := b.String()
	if len(out) <= max {
		return out
	}
	const ellipsis = "…"
	cut := max - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return out[:cut] + ellipsis
}
