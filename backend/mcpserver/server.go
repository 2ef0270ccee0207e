// Package mcpserver offers Steward to MCP clients (Claude Code, Claude
// Desktop, Codex): tools that start runs, list and read them, wait for them,
// send them control commands and export them. It holds no logic of its own:
// each tool checks its input, calls the service the API calls for the same
// thing, and describes the result.
//
// Approvals and questions are deliberately not answerable here: the caller
// of an MCP tool is usually a model, and a model must never approve its own
// calls. get_run and wait_run say where a person answers them instead (the
// run's page in the UI).
//
// Served over stdio (`steward mcp`) or as streamable HTTP, stateless, at
// /mcp of the API server, behind the API's token, Host and Origin checks.
// wait_run is the one tool that blocks; its wait ends with the call's
// context, the run's end or its deadline, whichever comes first.
package mcpserver

import (
	"context"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/run"
	"steward/backend/store"
)

// Runs is what the tools need of the engine.
type Runs interface {
	Start(ctx context.Context, p run.StartParams) (store.Run, error)
	Command(ctx context.Context, runID string, c run.Command) (run.CommandResult, error)
}

// Reader reads the runs' projections.
type Reader interface {
	GetRun(ctx context.Context, id string) (store.Run, error)
	ListRuns(ctx context.Context, f store.RunFilter) ([]store.Run, error)
	Graph(ctx context.Context, runID string) ([]store.Node, []store.Edge, error)
	NodeEvents(ctx context.Context, runID, nodeID string) ([]event.Event, error)
	ListInteractions(ctx context.Context, f store.InteractionFilter) ([]store.Interaction, error)
}

// Agents finds an agent by id or name.
type Agents interface {
	Get(ctx context.Context, key string) (agent.Agent, error)
}

// Exchange exports runs.
type Exchange interface {
	Export(ctx context.Context, runID, format string, w io.Writer) (exchange.Export, error)
}

// Config holds the tools' collaborators.
type Config struct {
	Version  string
	Runs     Runs
	Store    Reader
	Agents   Agents
	Exchange Exchange
	// Bus wakes wait_run when a run's status changes; nil makes it poll
	// the store alone.
	Bus *event.Bus
	// UI is the address of the UI (http://127.0.0.1:8787/) where a person
	// answers approvals; a run's link is UI + "#run=ID". It never holds the
	// token: whoever reads a tool's result must not be able to answer.
	UI string
	// ExportDir is the folder export_run writes into; the caller does not
	// choose where a file is written.
	ExportDir string
	// NewID makes command ids (prefix cmd).
	NewID func(prefix string) string
	Logf  func(format string, args ...any)
}

// Server is Steward's MCP server.
type Server struct {
	cfg Config
	mcp *mcp.Server
}

// New builds the server and its tools.
func New(cfg Config) *Server {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	s := &Server{cfg: cfg}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "steward", Title: "Steward", Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: "Steward runs AI agents on a workspace folder under a person's control. Start a run with start_run, " +
			"follow it with wait_run or get_run, steer or stop it with send_command, and export it with export_run. " +
			"Tool calls that need approval are answered by the person in Steward's UI (the run's ui_url), never through these tools.",
		// What Steward does, no more: its tools are fixed (the SDK's
		// default claims listChanged), and it accepts logging/setLevel
		// (the SDK's default) though it sends no log messages yet.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: false}, Logging: &mcp.LoggingCapabilities{}},
	})
	s.addTools()
	return s
}

// MCP is the SDK's server, to connect transports to (tests use in-memory
// ones).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one client on t (stdio for `steward mcp`) until it leaves or
// ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.mcp.Run(ctx, t) }

// Handler serves streamable HTTP, stateless: each request stands alone, so
// nothing is kept per client and GET and DELETE answer 405 as the transport
// specifies for a server without sessions. It checks no credential: mount
// it behind the API's authentication.
func (s *Server) Handler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}
