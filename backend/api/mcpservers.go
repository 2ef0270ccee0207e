package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"steward/backend/config"
	"steward/backend/tools/mcp"
)

// MCPServers is the settings screen's MCP servers: it describes those of
// config.json and tests one (on a session of its own, as a run's first
// call would), and adds, replaces, removes, enables, disables, trusts and
// distrusts them in config.json, which applies to the running client at
// once. Errors of a change wrap config.ErrInvalid (400, naming the field)
// or config.ErrNoMCPServer (404).
type MCPServers interface {
	Servers() []mcp.ServerView
	Test(ctx context.Context, name string) (mcp.ConnectionTest, error)
	Put(ctx context.Context, name string, entry json.RawMessage) error
	Remove(ctx context.Context, name string) error
	SetState(ctx context.Context, name string, st config.MCPState) error
}

// MCPState is the body of PUT /api/v1/mcp/servers/{name}/state.
type MCPState = config.MCPState

// mcpServersBody is the list of configured MCP servers.
type mcpServersBody struct {
	Servers []mcp.ServerView `json:"servers"`
}

func (s *Server) listMCPServers(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.MCPServers == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "MCP servers are not available in this server")
	}
	writeJSON(w, http.StatusOK, mcpServersBody{Servers: s.cfg.MCPServers.Servers()})
	return nil
}

// putMCPServer reads the entry raw, as pasted from another app: config.json
// keeps it so (its ${VAR}s unexpanded), and the store of settings checks it.
func (s *Server) putMCPServer(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.MCPServers == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "MCP servers are not available in this server")
	}
	var entry json.RawMessage
	if err := decode(w, r, &entry); err != nil {
		return err
	}
	if err := s.cfg.MCPServers.Put(r.Context(), r.PathValue("name"), entry); err != nil {
		return err
	}
	return s.listMCPServers(w, r)
}

func (s *Server) removeMCPServer(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.MCPServers == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "MCP servers are not available in this server")
	}
	if err := s.cfg.MCPServers.Remove(r.Context(), r.PathValue("name")); err != nil {
		return err
	}
	return s.listMCPServers(w, r)
}

func (s *Server) setMCPState(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.MCPServers == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "MCP servers are not available in this server")
	}
	var in MCPState
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if err := s.cfg.MCPServers.SetState(r.Context(), r.PathValue("name"), in); err != nil {
		return err
	}
	return s.listMCPServers(w, r)
}

func (s *Server) testMCPServer(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.MCPServers == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "MCP servers are not available in this server")
	}
	res, err := s.cfg.MCPServers.Test(r.Context(), r.PathValue("name"))
	if errors.Is(err, mcp.ErrUnknownServer) {
		return errorf(http.StatusNotFound, CodeNotFound, fmt.Sprintf("no MCP server %q in config.json's mcpServers", r.PathValue("name")))
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
