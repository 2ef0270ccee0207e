package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/sandbox"
	"steward/backend/tool"
)

// terminate is how long closing a stdio session waits for the server to
// exit after its stdin closes, before SIGTERM and then SIGKILL (the SDK's
// default, 5 s, would hold every run's end that long for a slow server).
const terminate = time.Second

// waitDelay bounds the wait for a stopped server's stderr to close.
const waitDelay = 2 * time.Second

// Protocol eras a session may speak: the SDK's first that is not
// 2026-07-28's (stateless, server/discover) is 2025-11-25's (initialize).
const (
	eraModern = "2026-07-28"
	eraLegacy = "2025-11-25"
)

// connect starts or reaches server name and opens a session with it. The
// SDK first tries the 2026-07-28 era's server/discover and falls back to
// initialize when the server answers that it does not know it. An old stdio
// server may exit on the probe instead: with protocol auto such a server
// is started again and asked with initialize, and the era that worked is
// remembered for its later sessions. The session keeps the end of a stdio
// server's stderr, for the errors the model is told.
//
// in is the run the session is for (its workspace and sandbox settings, see
// confine), or nil for none: a listing or a test of the person's server.
func (m *Manager) connect(ctx context.Context, name string, in *tool.Env) (*session, error) {
	s, ok := m.server(name)
	if !ok {
		return nil, fmt.Errorf("MCP server %s is not configured", name)
	}
	m.mu.Lock()
	legacy := s.Protocol == ProtocolLegacy || m.legacy[name]
	m.mu.Unlock()
	ss, err := m.dial(ctx, name, s, legacy, in)
	if err != nil && !legacy && s.protocol() == ProtocolAuto && s.transport() == TypeStdio && ctx.Err() == nil {
		var err2 error
		ss, err2 = m.dial(ctx, name, s, true, in)
		if err2 != nil {
			return nil, fmt.Errorf("%w (and asked with initialize only: %v)", err, err2)
		}
		m.mu.Lock()
		m.legacy[name] = true
		m.mu.Unlock()
		m.o.Logf("MCP server %s exits on server/discover: its sessions use initialize (%s)", name, eraLegacy)
		err = nil
	}
	if err != nil {
		return nil, err
	}
	if era := ss.InitializeResult().ProtocolVersion; s.Protocol == ProtocolModern && era < eraModern {
		_ = ss.close() // refused: what closing says adds nothing
		return nil, fmt.Errorf("MCP server %s speaks protocol %s, not the %s era its protocol %q asks for", name, era, eraModern, ProtocolModern)
	}
	return ss, nil
}

// session is an open session with a server, the end of its stderr (stdio)
// and the end of the context it lives in.
type session struct {
	*sdk.ClientSession
	tail   *stderrTail
	cancel context.CancelFunc
	cmd    *exec.Cmd     // a stdio server's process; nil for http and sse
	gone   chan struct{} // closed when the connection closes, by either side
	tap    *tapConn      // where its progress reports are read; nil for streamable HTTP (progress.go)
	// confined says a stdio server runs in the command sandbox.
	confined bool
}

// close closes the session, stopping a stdio server.
func (s *session) close() error {
	err := s.ClientSession.Close()
	s.cancel()
	return ignoreExit(err)
}

// stopped reports whether the connection is closed: the server exited or
// closed its end (a stdio server), or the session was closed.
func (s *session) stopped() bool {
	select {
	case <-s.gone:
		return true
	default:
		return false
	}
}

// exit says how a stdio server's process ended ("exit status 1", "signal:
// killed"), once the session is closed; "" when it has not, or for a server
// that is no process of Steward's.
func (s *session) exit() string {
	if s.cmd == nil || s.cmd.ProcessState == nil {
		return ""
	}
	return s.cmd.ProcessState.String()
}

// dial starts or reaches the server and opens a session, with initialize
// only when legacy is set.
func (m *Manager) dial(ctx context.Context, name string, s Server, legacy bool, in *tool.Env) (*session, error) {
	s, err := s.expanded(name, m.o.Getenv)
	if err != nil {
		return nil, err
	}
	if err := s.checkURL(); err != nil {
		return nil, fmt.Errorf("MCP server %s: %w", name, err)
	}
	var t sdk.Transport
	var tail *stderrTail
	var cmd *exec.Cmd
	confined := false
	switch s.transport() {
	case TypeStdio:
		// Not CommandContext: the process outlives the call that starts
		// it, and the session's Close stops it.
		cmd = exec.Command(s.Command, s.Args...)
		// The environment of every program Steward starts (no key or
		// token of Steward's, nor anything it does not name), and what
		// the person's configuration adds, which wins.
		cmd.Env = sandbox.Env()
		for _, k := range sortedNames(s.Env) {
			cmd.Env = append(cmd.Env, k+"="+s.Env[k])
		}
		cmd.Dir = s.Cwd
		if confined, err = m.confine(name, s, cmd, in); err != nil {
			return nil, err
		}
		tail = &stderrTail{}
		// The session's tail says why it stopped; the server's log, kept
		// across its sessions, is what Settings shows.
		cmd.Stderr = io.MultiWriter(tail, m.serverLog(name))
		// A program the server started (npx starts node) may hold its
		// stderr open after the server is gone: closing the session must
		// not wait for it for ever.
		cmd.WaitDelay = waitDelay
		t = &sdk.CommandTransport{Command: cmd, TerminateDuration: terminate}
	case TypeHTTP, TypeSSE:
		h := http.Header{}
		for k, v := range s.Headers {
			h.Set(k, v)
		}
		if s.BearerTokenEnv != "" {
			tok := m.o.Getenv(s.BearerTokenEnv)
			if tok == "" {
				return nil, fmt.Errorf("MCP server %s: the environment variable %s (bearer_token_env) is not set", name, s.BearerTokenEnv)
			}
			h.Set("Authorization", "Bearer "+tok)
		}
		client := &http.Client{Transport: &headers{h: h, base: http.DefaultTransport}}
		if s.transport() == TypeSSE {
			t = &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: client}
			break
		}
		// The standing stream is kept open: a server of the 2025-11-25 era
		// may send its elicitation/create there rather than on the call's
		// own stream (the TypeScript SDK does, for a request it does not
		// tie to the call).
		t = &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: client}
	default:
		return nil, fmt.Errorf("MCP server %s: type %q", name, s.Type) // ParseServers refused it
	}
	// Progress reports are read off the connection where it can be
	// wrapped: all but streamable HTTP's (progress.go).
	var tap *tapTransport
	if s.transport() != TypeHTTP {
		tap = &tapTransport{Transport: t, m: m}
		t = tap
	}
	var opts *sdk.ClientSessionOptions
	if legacy {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: eraLegacy}
	}
	// A transport may keep what Connect's context starts for as long as
	// the session lasts (the SSE stream of a streamable HTTP session), so
	// the session lives in a context of its own, which only the call's end
	// during the handshake cancels, and the session's close.
	live, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	cs, err := m.client.Connect(live, t, opts)
	if !stop() && err == nil { // the call ended during the handshake
		_ = ignoreExit(cs.Close()) // unused: what closing says adds nothing
		err = context.Cause(ctx)
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("MCP server %s could not be started: %w%s", name, err, tail.say())
	}
	ss := &session{ClientSession: cs, tail: tail, cancel: cancel, cmd: cmd, gone: make(chan struct{}), confined: confined}
	if tap != nil {
		ss.tap = tap.conn
	}
	// Ends when the session closes: every session is closed, by its run's
	// end, by the Manager's Close, or when its server is found gone.
	go func() {
		_ = cs.Wait() // how it closed is what the calls and ss.exit say
		close(ss.gone)
	}()
	return ss, nil
}

// headers adds the server's headers to each request.
type headers struct {
	h    http.Header
	base http.RoundTripper
}

func (t *headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.base.RoundTrip(r)
}

// maxTail is how much of a server's stderr is kept, for the errors: the
// last lines usually say why it stopped.
const maxTail = 2 << 10

// stderrTail keeps the last maxTail bytes written to it. Its methods are
// safe for concurrent use, and a nil one keeps nothing.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
	max int // 0 keeps maxTail
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	limit := t.max
	if limit == 0 {
		limit = maxTail
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > limit {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-limit:]...)
	}
	return len(p), nil
}

// say is the tail as the end of an error message, or "" when empty.
func (t *stderrTail) say() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	return "; its stderr ends: " + s
}

// ignoreExit drops what a stdio server's exit says when its session is
// closed: a server stopped by SIGTERM reports its status as an error, and
// one that had already exited (it crashed, or ended on its own) makes the
// signal fail with os.ErrProcessDone.
func ignoreExit(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) || errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
