// Package api serves the REST API, the WebSocket and the embedded UI over
// HTTP on a loopback address. It holds no logic of its own: every handler
// decodes, calls a service, and encodes. Security: every /api route and
// the MCP endpoint (/mcp) need the token (bearer or session cookie); every
// request must name this server as its Host (DNS rebinding) and come from
// no Origin or this server's own;
// a request that changes something on the strength of the cookie alone
// must come from this server's own page (requireAuth); no answer may be
// framed by another page (ServeHTTP).
package api

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
	"steward/backend/workspace"
)

// Runs is what the API needs of the engine.
type Runs interface {
	Start(ctx context.Context, p run.StartParams) (store.Run, error)
	Command(ctx context.Context, runID string, c run.Command) (run.CommandResult, error)
	NodeInput(ctx context.Context, runID, nodeID string) ([]llm.Message, error)
	Files(ctx context.Context, runID string) (workspace.FilesView, error)
	Restore(ctx context.Context, runID string, p run.RestoreParams) (run.RestoreResult, error)
	// Budget is the budgets and spending of a run this process drives, from
	// the engine's state; ok is false for a run it does not drive.
	Budget(runID string) (b run.Budget, ok bool)
}

// Answerer answers interactions.
type Answerer interface {
	Answer(ctx context.Context, id string, d inbox.Decision) (store.Interaction, error)
}

// Reader reads the projections and the log.
type Reader interface {
	GetRun(ctx context.Context, id string) (store.Run, error)
	ListRuns(ctx context.Context, f store.RunFilter) ([]store.Run, error)
	Usage(ctx context.Context, f store.UsageFilter) ([]store.UsageRow, error)
	Events(ctx context.Context, runID string, after int64, limit int) ([]event.Event, error)
	Graph(ctx context.Context, runID string) ([]store.Node, []store.Edge, error)
	NodeEvents(ctx context.Context, runID, nodeID string) ([]event.Event, error)
	GetInteraction(ctx context.Context, id string) (store.Interaction, error)
	ListInteractions(ctx context.Context, f store.InteractionFilter) ([]store.Interaction, error)
	Ping(ctx context.Context) error
	GrantStore
}

// Agents manages agent definitions.
type Agents interface {
	Create(ctx context.Context, a agent.Agent) (agent.Agent, error)
	Update(ctx context.Context, key string, a agent.Agent) (agent.Agent, error)
	Delete(ctx context.Context, key string) error
	Get(ctx context.Context, key string) (agent.Agent, error)
	List(ctx context.Context) ([]agent.Agent, error)
}

// Models says what an agent resolves to.
type Models interface {
	Resolve(ctx context.Context, a agent.Agent) (run.Model, error)
	Describe(ctx context.Context) (provider string, demo bool, note string)
}

// Catalog lists tools.
type Catalog interface {
	Specs(names ...string) []tool.Spec
	Lookup(name string) (tool.Spec, bool)
}

// Config holds the server's collaborators and settings.
type Config struct {
	Token            string
	Version          string
	DefaultWorkspace string
	// ExtraHost is a non-loopback host name to accept (with --addr on
	// another interface); empty for loopback only.
	ExtraHost string
	Runs      Runs
	Inbox     Answerer
	Store     Reader
	Agents    Agents
	Models    Models
	Tools     Catalog
	// Desktop opens the window's native dialogs; nil outside the desktop
	// window.
	Desktop Desktop
	// Settings are the providers and prices the settings screens change;
	// nil answers 501.
	Settings Settings
	// MCPServers is the configured MCP servers, for the settings screen;
	// nil answers 501.
	MCPServers MCPServers
	// Projects reviews and approves workspaces' .mcp.json files; nil
	// answers 501.
	Projects ProjectServers
	// Artifacts is the folder of the runs' artifacts (one folder per run);
	// empty serves none.
	Artifacts string
	// Frames is the live browser's latest picture; nil when there is no
	// browser.
	Frames Frames
	// Exchange exports runs and imports recordings; nil answers 501.
	Exchange Exchange
	// Replays replays runs; nil answers 501.
	Replays Replayer
	// Sandbox says whether commands can be sandboxed here (GET /info);
	// nil is a machine where they cannot.
	Sandbox interface{ Available() error }
	// MCP serves the MCP endpoint (streamable HTTP) at /mcp, behind the
	// same token, Host and Origin checks as the API; nil serves none.
	MCP  http.Handler
	Bus  *event.Bus
	UI   fs.FS
	Logf func(format string, args ...any)
}

// Desktop is the desktop window's native dialogs.
type Desktop interface {
	PickFolder(ctx context.Context, title, start string) (string, error)
	// SaveFile asks where to save a file, suggesting name; "" when the
	// person cancelled.
	SaveFile(ctx context.Context, title, name string) (string, error)
}

// Server is the HTTP handler. Set its port with SetPort once the listener
// is bound, before serving.
type Server struct {
	cfg     Config
	session string
	portStr atomic.Value // string
	mux     *http.ServeMux
	routes  []route
	// wsWrite lends the WebSocket connections their write buffer for the
	// time of a write: an idle client holds none (16 KiB each otherwise).
	wsWrite sync.Pool
	// budgets remembers the budgets of runs not driven here (budget.go).
	budgets budgetCache
}

// New builds the server.
func New(cfg Config) *Server {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	s := &Server{cfg: cfg, session: sessionValue(cfg.Token), mux: http.NewServeMux()}
	s.portStr.Store("")
	s.routes = s.routeTable()
	for _, rt := range s.routes {
		h := s.checkQuery(rt, rt.handler)
		if rt.auth {
			h = s.requireAuth(h)
		}
		s.mux.Handle(rt.method+" "+rt.path, h)
	}
	if cfg.MCP != nil {
		// POST carries the messages; GET and DELETE are the transport's too
		// (a stateless handler answers them 405, as the transport says).
		for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			s.mux.Handle(m+" "+mcpPath, s.requireAuth(cfg.MCP))
		}
	}
	s.mux.Handle("GET /", s.ui())
	return s
}

// mcpPath is where the MCP endpoint is served.
const mcpPath = "/mcp"

// SetPort tells the server the port it is bound to, for the Host check.
func (s *Server) SetPort(port int) { s.portStr.Store(strconv.Itoa(port)) }

func (s *Server) port() string { return s.portStr.Load().(string) }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			s.cfg.Logf("api: panic in %s %s: %v\n%s", r.Method, r.URL.Path, p, debug.Stack())
			s.fail(w, r, errorf(http.StatusInternalServerError, CodeInternal, "internal error; see the server log"))
		}
	}()
	// No page of this server may be shown in a frame of another page: a
	// page on another 127.0.0.1 port is same-site, gets the UI with its
	// cookie, and could make the person click Approve in it unseen. A
	// handler with a stricter policy of its own (the exported web page,
	// artifacts) replaces the Content-Security-Policy; X-Frame-Options
	// stays on every answer.
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", noFraming)
	if !s.hostAllowed(r.Host) {
		s.fail(w, r, errorf(http.StatusForbidden, CodeForbidden, "host "+strconv.Quote(r.Host)+" is not this server"))
		return
	}
	if !s.originAllowed(r.Header.Get("Origin")) {
		s.fail(w, r, errorf(http.StatusForbidden, CodeForbidden, "origin "+strconv.Quote(r.Header.Get("Origin"))+" may not use this server"))
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	// Unrouted API requests get the API's JSON errors, not the mux's text.
	if _, pattern := s.mux.Handler(r); pattern == "" || (pattern == "GET /" && strings.HasPrefix(r.URL.Path, "/api/")) {
		s.noRoute(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// requireAuth lets through requests that prove the token. One that changes
// something on the strength of the session cookie alone must also come
// from a page of this server (sameOrigin): the browser sends the cookie
// with requests that other pages on this machine make, too.
func (s *Server) requireAuth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch s.authenticate(r) {
		case noCredential:
			s.fail(w, r, errorf(http.StatusUnauthorized, CodeUnauthorized, "missing or wrong token: send Authorization: Bearer TOKEN, or open the URL that steward serve printed"))
			return
		case byCookie:
			if changesState(r) && !s.sameOrigin(r) {
				s.fail(w, r, errorf(http.StatusForbidden, CodeForbidden, r.Method+" "+r.URL.Path+
					" with the session cookie must come from this server's own page (its Origin, or Sec-Fetch-Site: same-origin); programs send Authorization: Bearer TOKEN"))
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// maxBody bounds request bodies; instructions are the largest input.
const maxBody = 1 << 20

// decode reads a JSON body into v, refusing unknown fields, trailing data
// and bodies over maxBody, with a message that names the problem.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if ok := asMaxBytes(err, &mbe); ok {
			return errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "request body is larger than 1 MiB")
		}
		return errorf(http.StatusBadRequest, CodeInvalid, "invalid JSON body: "+err.Error())
	}
	if dec.More() {
		return errorf(http.StatusBadRequest, CodeInvalid, "invalid JSON body: more than one JSON value")
	}
	return nil
}

// noRoute answers an /api/ request that no route takes, in the API's JSON:
// 405 with Allow when the path exists under other methods, else 404.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		r2 := r.Clone(r.Context())
		r2.Method = m
		if _, pattern := s.mux.Handler(r2); pattern != "" && pattern != "GET /" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.fail(w, r, errorf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path+"; use "+strings.Join(allow, " or ")))
		return
	}
	s.fail(w, r, errorf(http.StatusNotFound, CodeNotFound, "no route "+r.Method+" "+r.URL.Path))
}
