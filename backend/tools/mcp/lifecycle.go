package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"steward/backend/event"
	"steward/backend/redact"
	"steward/backend/tool"
)

// The backoff between starts of a server that crashed or could not be
// started: 0.5 s after the first failure, doubling with each failure that
// follows, at most 30 s; a call the server answers resets it.
const (
	backoffFirst = 500 * time.Millisecond
	backoffMax   = 30 * time.Second
)

// backoff is the wait before the next start after n failures in a row.
func backoff(n int) time.Duration {
	d := backoffFirst
	for i := 1; i < n && d < backoffMax; i++ {
		d *= 2
	}
	return min(d, backoffMax)
}

// startMargin is what a call must have left of its deadline once the
// backoff is over for it to wait: the server's start and the call itself
// need time too.
const startMargin = 5 * time.Second

// pingWait bounds the ping that asks a server whether it still answers,
// after one of its calls ran out of time.
const pingWait = 5 * time.Second

// conn is one run's session with one server, opened at its first call,
// and what the run knows of the server's health: how often it failed in a
// row and when it may be started again.
type conn struct {
	mu sync.Mutex // held while connecting: the run's calls share one start
	ss *session
	// starts counts the starts since the server last answered a call (the
	// session open now included); failures the crashes and failed starts
	// in a row since then. No start is made before retryAt; why says what
	// the last failure was, for a call that cannot wait for it.
	starts   int
	failures int
	retryAt  time.Time
	why      string
	// suspect is set when a call ran out of time: the next call first asks
	// the server whether it answers at all (a hung server is stopped and
	// started again; a slow tool is not).
	suspect bool
	// ended is set when the run ended (or the Manager closed): a call left
	// behind, or one that waited out the backoff meanwhile, starts nothing.
	ended bool
}

func (c *conn) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.ss == nil {
		return nil
	}
	err := c.ss.close()
	c.ss = nil
	return err
}

// session returns the session of env's run with server name, starting the
// server if need be: at the run's first call of it, or after it crashed,
// once the backoff is over. It reports what became of the server through
// env (tool.Env.Server).
func (m *Manager) session(ctx context.Context, env tool.Env, name string) (*session, *conn, error) {
	m.mu.Lock()
	holder, shared := env.RunID, m.servers[name].Shared
	if shared {
		holder = sharedRun
	}
	byServer := m.runs[holder]
	if byServer == nil {
		byServer = map[string]*conn{}
		m.runs[holder] = byServer
	}
	c := byServer[name]
	if c == nil {
		c = &conn{}
		byServer[name] = c
	}
	m.mu.Unlock()
	for {
		c.mu.Lock()
		if c.ended {
			c.mu.Unlock()
			return nil, c, fmt.Errorf("MCP server %s: the run has ended", name)
		}
		if ss := c.ss; ss != nil {
			if !ss.stopped() && (!c.suspect || m.answers(ctx, ss)) {
				c.suspect = false
				c.mu.Unlock()
				if err := m.mayShare(env, name, ss); err != nil {
					return nil, c, err
				}
				return ss, c, nil
			}
			if ctx.Err() != nil { // the ping ended with the call, not with the server
				c.mu.Unlock()
				return nil, c, context.Cause(ctx)
			}
			if ss.stopped() { // it exited, or closed its end, since the last call
				m.lostLocked(env, name, c, ss, "it closed the connection", false)
			} else {
				m.lostLocked(env, name, c, ss, fmt.Sprintf("hung: no answer to a ping within %s after a call ran out of time", pingWait), true)
			}
		}
		wait := time.Until(c.retryAt)
		if c.failures == 0 || wait <= 0 {
			defer c.mu.Unlock()
			return m.startLocked(ctx, env, name, c)
		}
		why := c.why
		c.mu.Unlock()
		// While the server backs off, the call waits for its next start
		// when the call's deadline leaves time for it, rather than failing
		// at once: a model told "try later" calls again at once and spends
		// a turn to be told the same, where the person expects the call to
		// go through once the server is back. The wait is at most the
		// backoff's cap (30 s, within the 2 minutes a call has by
		// default); the event that reported the failure says how long it
		// is, and the person's cancel ends it. A call with too short a
		// deadline is told when the server is started again.
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait+startMargin {
			return nil, c, fmt.Errorf("MCP server %s %s; it is started again in %s, at the run's next call after that",
				name, why, wait.Round(100*time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, c, context.Cause(ctx)
		case <-t.C:
		}
	}
}

// startLocked starts (or reaches) the server and opens c's session, and
// reports it: restarted before a start that follows a failure, then
// connected or failed. c.mu must be held.
func (m *Manager) startLocked(ctx context.Context, env tool.Env, name string, c *conn) (*session, *conn, error) {
	c.starts++
	if c.failures > 0 {
		m.report(env, event.MCPServerData{Server: name, State: event.MCPRestarted, Attempt: c.starts})
	}
	in := env
	if s, _ := m.server(name); s.Shared {
		// No run's: its own folder is the one it may write.
		dir, err := m.sharedDir(name)
		if err != nil {
			return nil, c, err
		}
		in.Workspace = dir
	}
	ss, err := m.connect(ctx, name, &in)
	if err != nil {
		if ctx.Err() != nil {
			// The call ended while the server started: no fault of the
			// server's, and no failure to back off from.
			c.starts--
			return nil, c, err
		}
		c.failures++
		wait := backoff(c.failures)
		c.retryAt, c.why = time.Now().Add(wait), "could not be started"
		m.report(env, event.MCPServerData{Server: name, State: event.MCPFailed, Attempt: c.starts,
			Reason: m.scrub(err.Error()), RetryInMS: wait.Milliseconds()})
		return nil, c, err
	}
	c.ss = ss
	s, _ := m.server(name)
	m.report(env, event.MCPServerData{Server: name, State: event.MCPConnected, Attempt: c.starts,
		Era: ss.InitializeResult().ProtocolVersion, Transport: s.transport()})
	return ss, c, nil
}

// answers reports whether the server answers a ping within pingWait. A
// JSON-RPC error is an answer: a stateless server of the 2026-07-28 era
// may know no ping, and still serves.
func (m *Manager) answers(ctx context.Context, ss *session) bool {
	ctx, cancel := context.WithTimeout(ctx, pingWait)
	defer cancel()
	err := ss.Ping(ctx, nil)
	var wire *jsonrpc.Error
	return err == nil || errors.As(err, &wire)
}

// lost closes c's session ss after its server stopped or could no longer
// be reached during a call (err says how), so that the run's next call
// starts it again after the backoff, and reports the crash. It returns
// what the model is told of it.
func (m *Manager) lost(env tool.Env, name string, c *conn, ss *session, err error) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ss != ss {
		return "" // another call of the run found it gone first
	}
	return m.lostLocked(env, name, c, ss, err.Error(), false)
}

// lostLocked closes ss, counts the failure and reports it. why says what
// was seen: it is the reason when the server hung (closing the session
// killed it) or its exit does not say more (http, sse). It returns the
// crash as the end of a sentence starting "MCP server <name> ... it".
// c.mu must be held.
func (m *Manager) lostLocked(env tool.Env, name string, c *conn, ss *session, why string, hung bool) string {
	_ = ss.close() // what closing says is in ss.exit
	c.ss = nil
	c.suspect = false
	c.failures++
	wait := backoff(c.failures)
	reason := ss.exit()
	if hung || reason == "" {
		reason = why
	}
	c.retryAt, c.why = time.Now().Add(wait), "crashed ("+reason+")"
	m.report(env, event.MCPServerData{Server: name, State: event.MCPCrashed, Reason: m.scrub(reason),
		Stderr: m.scrub(ss.tail.last(maxReportedTail)), RetryInMS: wait.Milliseconds()})
	return fmt.Sprintf("crashed (%s); the run's next call starts it again, in %s at the soonest", reason, wait)
}

// answered notes that the server answered a call: the backoff starts anew.
func (c *conn) answered() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures, c.starts, c.why = 0, 1, ""
}

// timedOut notes that a call ran out of time: the next call asks first
// whether the server still answers.
func (c *conn) timedOut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.suspect = true
}

// maxReportedTail is how much of a server's stderr an mcp.server event
// carries: its last lines, which usually say why it stopped; the log of
// Settings → MCP servers has the rest.
const maxReportedTail = 400

// scrub removes the servers' credentials (Secrets) from what a server said
// before it is reported: the engine redacts events too, but the Manager
// knows exactly which values it was given.
func (m *Manager) scrub(s string) string {
	if s == "" {
		return ""
	}
	return redact.New(m.Secrets()...).String("mcp.server", s)
}

// last is the end of what the tail holds, at most n bytes, from a line's
// start when one begins in them, trimmed; "" for a nil tail.
func (t *stderrTail) last(n int) string {
	s := strings.TrimSpace(t.text())
	if len(s) <= n {
		return s
	}
	s = strings.ToValidUTF8(s[len(s)-n:], "") // a character cut in two is left out
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}
