package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/event"
	"steward/backend/tools/mcp"
)

// TestProjectApprovalIsOfTheFileAsShown: an approval names the digest the
// person was shown and holds only while the file is that one; it is kept
// in config.json, by workspace, and can be taken back.
func TestProjectApprovalIsOfTheFileAsShown(t *testing.T) {
	t.Parallel()
	s, _, _ := newSettings(t, nil)
	ctx := context.Background()
	ws := t.TempDir()
	file := filepath.Join(ws, mcp.ProjectFile)
	write := func(body string) string {
		t.Helper()
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		p, _, err := mcp.ReadProject(ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p.SHA256
	}
	if _, err := s.ApproveProject(ctx, ws, "abc"); !errors.Is(err, ErrInvalid) {
		t.Errorf("a malformed digest: %v", err)
	}
	if _, err := s.ApproveProject(ctx, ws, strings.Repeat("a", 64)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "has no .mcp.json") {
		t.Errorf("no file: %v", err)
	}
	shown := write(`{"mcpServers": {"db": {"command": "db-mcp"}}}`)
	write(`{"mcpServers": {"db": {"command": "evil"}}}`) // changed before the click
	if _, err := s.ApproveProject(ctx, ws, shown); !errors.Is(err, ErrProjectChanged) || !strings.Contains(err.Error(), "is not the file you were shown") {
		t.Errorf("a file changed since it was shown: %v", err)
	}
	if got := s.ProjectApproval(ws); got != "" {
		t.Fatalf("approved %q after a refused approval", got)
	}
	shown = write(`{"mcpServers": {"db": {"command": "db-mcp"}}}`)
	v, err := s.ApproveProject(ctx, ws, shown)
	if err != nil || v.SHA256 != shown || v.State != event.ProjectApproved || len(v.Servers) != 1 || v.Servers[0].Entry.Command != "db-mcp" {
		t.Fatalf("approve: %+v, %v", v, err)
	}
	if got := s.ProjectApproval(ws); got != shown {
		t.Errorf("approval %q, want %q", got, shown)
	}
	if got := s.ProjectApproval(t.TempDir()); got != "" {
		t.Errorf("another workspace is approved: %q", got)
	}
	b, err := os.ReadFile(s.path)
	if err != nil || !strings.Contains(string(b), `"mcpProjects"`) || !strings.Contains(string(b), shown) {
		t.Errorf("config.json does not keep it: %s, %v", b, err)
	}
	if v, err := s.RevokeProject(ctx, ws); err != nil || s.ProjectApproval(ws) != "" || v.State != event.ProjectUnapproved {
		t.Errorf("revoke: %+v, %v, still %q", v, err, s.ProjectApproval(ws))
	}
}
