package api

import (
	"context"
	"fmt"
	"net/http"

	"steward/backend/tools/mcp"
	"steward/backend/workspace"
)

// ProjectServers is the review of a workspace's .mcp.json: what it
// declares, whether the person approved it as it is, and the approval
// itself (of the digest the person was shown) and its revocation, kept on
// this machine. Errors of an approval wrap config.ErrInvalid (400) or
// config.ErrProjectChanged (409: the file changed after it was shown).
type ProjectServers interface {
	ProjectView(workspace string) (mcp.ProjectView, error)
	ApproveProject(ctx context.Context, workspace, sha256 string) (mcp.ProjectView, error)
	RevokeProject(ctx context.Context, workspace string) (mcp.ProjectView, error)
}

// ProjectApproval is the body of POST /api/v1/mcp/project/approve.
type ProjectApproval struct {
	Workspace string `json:"workspace"`
	// SHA256 is the digest of the file as the person was shown it.
	SHA256 string `json:"sha256"`
}

// ProjectRevocation is the body of POST /api/v1/mcp/project/revoke.
type ProjectRevocation struct {
	Workspace string `json:"workspace"`
}

// projectWorkspace is the canonical path of the workspace named, as runs
// record it and approvals are kept by.
func projectWorkspace(ws string) (string, error) {
	root, err := workspace.Open(ws)
	if err != nil {
		return "", errorf(http.StatusBadRequest, CodeInvalid, fmt.Sprintf("workspace: %v", err))
	}
	return root.Path(), nil
}

func (s *Server) projectServers() (ProjectServers, error) {
	if s.cfg.Projects == nil {
		return nil, errorf(http.StatusNotImplemented, CodeUnsupported, "project MCP servers are not available in this server")
	}
	return s.cfg.Projects, nil
}

func (s *Server) viewProject(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.projectServers()
	if err != nil {
		return err
	}
	ws, err := projectWorkspace(qProjectWorkspace.get(r))
	if err != nil {
		return err
	}
	v, err := ps.ProjectView(ws)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

func (s *Server) approveProject(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.projectServers()
	if err != nil {
		return err
	}
	var in ProjectApproval
	if err := decode(w, r, &in); err != nil {
		return err
	}
	ws, err := projectWorkspace(in.Workspace)
	if err != nil {
		return err
	}
	v, err := ps.ApproveProject(r.Context(), ws, in.SHA256)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

func (s *Server) revokeProject(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.projectServers()
	if err != nil {
		return err
	}
	var in ProjectRevocation
	if err := decode(w, r, &in); err != nil {
		return err
	}
	ws, err := projectWorkspace(in.Workspace)
	if err != nil {
		return err
	}
	v, err := ps.RevokeProject(r.Context(), ws)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}
