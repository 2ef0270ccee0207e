package cli

import (
	"context"
	"encoding/json"
	"log"
	"time"

	"steward/backend/agent"
	"steward/backend/api"
	"steward/backend/config"
	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/inbox"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/sandbox"
	"steward/backend/store"
	"steward/backend/tool"
	browsertools "steward/backend/tools/browser"
	mcptools "steward/backend/tools/mcp"
)

// Services are built once by the composition root and shared by every
// mode.
type Services struct {
	Config   config.Config
	Store    *store.Store
	Bus      *event.Bus
	Tools    *tool.Registry
	Inbox    *inbox.Inbox
	Runs     *run.Service
	Agents   *agent.Service
	Models   *config.Models
	Settings *config.Settings
	Browser  *browsertools.Manager
	MCP      *mcptools.Manager
	Projects *mcptools.Projects // the runs' servers of their workspaces' .mcp.json
	Sandbox  *sandbox.Sandbox
	Exchange *exchange.Service
	Replays  *replay.Service
	Logger   *log.Logger
	// Desktop is the window's native dialogs when serving the desktop
	// window; nil for `steward serve`.
	Desktop api.Desktop
}

// Close stops the runs, then the browsers they used, then the store.
func (s *Services) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Runs.Shutdown(ctx); err != nil {
		s.Logger.Printf("stop runs: %v", err)
	}
	s.Browser.Close() // the runs are stopped: no Chromium is left behind
	if s.MCP != nil {
		if err := s.MCP.Close(); err != nil { // nor an MCP server
			s.Logger.Printf("stop MCP servers: %v", err)
		}
	}
	if s.Projects != nil {
		if err := s.Projects.Close(); err != nil {
			s.Logger.Printf("stop project MCP servers: %v", err)
		}
	}
	if err := s.Store.Close(); err != nil {
		s.Logger.Printf("close store: %v", err)
	}
}

// mcpSettings is the settings screen's MCP servers: the client's view and
// tests of them, and the changes of config.json, which the composition
// root applies to the client (Settings.OnMCPServers).
type mcpSettings struct {
	*mcptools.Manager
	settings *config.Settings
}

func (m mcpSettings) Put(ctx context.Context, name string, entry json.RawMessage) error {
	return m.settings.PutMCPServer(ctx, name, entry)
}

func (m mcpSettings) Remove(ctx context.Context, name string) error {
	return m.settings.RemoveMCPServer(ctx, name)
}

func (m mcpSettings) SetState(ctx context.Context, name string, st config.MCPState) error {
	return m.settings.SetMCPState(ctx, name, st)
}
