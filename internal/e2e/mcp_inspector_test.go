package e2e

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"steward/backend/tools/mcp/mcptest"
)

// TestE2EMCPInspectorListsAndCallsStewardsTools: the MCP Inspector's CLI
// (@modelcontextprotocol/inspector-cli, pinned in testdata/mcp-npm), a
// client that is not Steward's own, lists Steward's tools with their
// annotations and calls them, over stdio (`steward mcp`, started by the
// Inspector for each call, on one data directory) and over streamable
// HTTP (/mcp of `steward serve`, with the token as a header).
func TestE2EMCPInspectorListsAndCallsStewardsTools(t *testing.T) {
	t.Parallel()
	cli := inspectorCLI(t)
	bin := stewardBin(t)
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		ws := t.TempDir()
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STEWARD_HOME=" + home, "STEWARD_DISCOVER=0"}
		// The Inspector starts the command after -- with the environment
		// it has; --addr keeps the UI of each `steward mcp` off 8788.
		stdio := func(args ...string) []byte {
			t.Helper()
			return inspect(t, cli, env, append(append([]string{bin}, args...), "--", "mcp", "--addr", "127.0.0.1:0")...)
		}
		checkTools(t, stdio("--method", "tools/list"))

		var list runList
		callResult(t, stdio("--method", "tools/call", "--tool-name", "list_runs"), &list)
		if list.Runs == nil || len(list.Runs) != 0 {
			t.Errorf("list_runs on a fresh data directory: %+v", list)
		}
		res := callResult(t, stdio("--method", "tools/call", "--tool-name", "get_run", "--tool-arg", "run_id=run_nope"), nil)
		if !res.IsError || !strings.Contains(res.text(), `run "run_nope" does not exist`) {
			t.Errorf("get_run of an unknown run: %+v, want a tool error naming it", res)
		}
		var started struct {
			ID           string `json:"id"`
			Status       string `json:"status"`
			Instructions string `json:"instructions"`
			Workspace    string `json:"workspace"`
			UIURL        string `json:"ui_url"`
		}
		callResult(t, stdio("--method", "tools/call", "--tool-name", "start_run",
			"--tool-arg", "instructions=write the demo note", "workspace="+ws), &started)
		if !strings.HasPrefix(started.ID, "run_") || started.Instructions != "write the demo note" || started.Workspace != ws ||
			!strings.HasSuffix(started.UIURL, "#run="+started.ID) {
			t.Fatalf("start_run = %+v", started)
		}
		// Another `steward mcp` on the same data finds the run that the
		// first one started before its client left.
		callResult(t, stdio("--method", "tools/call", "--tool-name", "list_runs", "--tool-arg", "limit=5"), &list)
		if len(list.Runs) != 1 || list.Runs[0].ID != started.ID {
			t.Errorf("list_runs after start_run = %+v, want %s", list, started.ID)
		}
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, t.TempDir())
		_, token, _ := strings.Cut(s.url, "?token=")
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		url := s.base + "/mcp"
		checkTools(t, inspect(t, cli, env, url, "--header", "Authorization: Bearer "+token, "--method", "tools/list"))
		var list runList
		callResult(t, inspect(t, cli, env, url, "--header", "Authorization: Bearer "+token, "--method", "tools/call", "--tool-name", "list_runs"), &list)
		if list.Runs == nil || len(list.Runs) != 0 {
			t.Errorf("list_runs on a fresh data directory: %+v", list)
		}
		if out, err := inspectErr(cli, env, url, "--method", "tools/list"); err == nil {
			t.Errorf("the Inspector listed the tools without the token:\n%s", out)
		}
	})
}

// inspectorCLI is the Inspector's CLI program (its bin, build/cli.js, runs
// it as a child in --cli mode; the test runs it directly).
func inspectorCLI(t *testing.T) string {
	t.Helper()
	cli := filepath.Join(mcptest.NPMDir(t), "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "index.js")
	if _, err := os.Stat(cli); err != nil {
		if os.Getenv(mcptest.NPMRequired) != "" {
			t.Fatalf("@modelcontextprotocol/inspector-cli is not installed (npm ci in testdata/mcp-npm): %v", err)
		}
		t.Skipf("@modelcontextprotocol/inspector-cli is not installed (npm ci in testdata/mcp-npm): %v", err)
	}
	return cli
}

// inspect runs the Inspector's CLI with args and returns what it printed
// on stdout, the result's JSON; it fails the test when the CLI fails.
func inspect(t *testing.T, cli string, env []string, args ...string) []byte {
	t.Helper()
	out, err := inspectErr(cli, env, args...)
	if err != nil {
		t.Fatalf("inspector-cli %q: %v\n%s", args, err, out)
	}
	return out
}

// inspectErr runs the Inspector's CLI; on failure its output is stderr
// after stdout.
func inspectErr(cli string, env []string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{cli}, args...)...)
	// It finds its own package.json as ../package.json of the working
	// folder (fs.existsSync, not of its module): it must run in build/.
	cmd.Dir = filepath.Dir(cli)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return append(out, stderr.String()...), err
	}
	return out, nil
}

// wantHints are the tools Steward offers and the hints a client acts on,
// with the protocol's defaults for a hint left out (destructive and open
// world unless said otherwise), as docs/mcp-server.md lists them.
var wantHints = map[string]hints{
	"start_run":    {readOnly: false, destructive: false, idempotent: false, openWorld: true},
	"list_runs":    {readOnly: true, openWorld: false},
	"get_run":      {readOnly: true, openWorld: false},
	"wait_run":     {readOnly: true, openWorld: false},
	"send_command": {readOnly: false, destructive: true, idempotent: false, openWorld: false},
	"export_run":   {readOnly: false, destructive: false, idempotent: true, openWorld: false},
}

type hints struct{ readOnly, destructive, idempotent, openWorld bool }

// checkTools checks the Inspector's tools/list output: Steward's six
// tools, each described, with an object input schema and its hints.
func checkTools(t *testing.T, out []byte) {
	t.Helper()
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema struct {
				Type string `json:"type"`
			} `json:"inputSchema"`
			Annotations *struct {
				Title           string `json:"title"`
				ReadOnlyHint    *bool  `json:"readOnlyHint"`
				DestructiveHint *bool  `json:"destructiveHint"`
				IdempotentHint  *bool  `json:"idempotentHint"`
				OpenWorldHint   *bool  `json:"openWorldHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		want, ok := wantHints[tl.Name]
		if !ok {
			t.Errorf("tool %s is not one of Steward's", tl.Name)
			continue
		}
		if tl.Description == "" || tl.InputSchema.Type != "object" || tl.Annotations == nil || tl.Annotations.Title == "" {
			t.Errorf("tool %s: description %q, input schema type %q, annotations %+v", tl.Name, tl.Description, tl.InputSchema.Type, tl.Annotations)
			continue
		}
		a := tl.Annotations
		hint := func(p *bool, def bool) bool {
			if p == nil {
				return def
			}
			return *p
		}
		got := hints{readOnly: hint(a.ReadOnlyHint, false), destructive: hint(a.DestructiveHint, true),
			idempotent: hint(a.IdempotentHint, false), openWorld: hint(a.OpenWorldHint, true)}
		if got.readOnly {
			// The protocol gives destructive and idempotent a meaning for
			// a tool that writes only.
			got.destructive, got.idempotent = false, false
		}
		if got != want {
			t.Errorf("tool %s: hints %+v, want %+v", tl.Name, got, want)
		}
	}
	slices.Sort(names)
	if want := slices.Sorted(maps.Keys(wantHints)); !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

// toolResult is the Inspector's tools/call output.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (r toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// runList is list_runs' structured result.
type runList struct {
	Runs []struct {
		ID string `json:"id"`
	} `json:"runs"`
}

// callResult decodes a tools/call output and, with out, its structured
// content, which a result that is no tool error must have.
func callResult(t *testing.T, raw []byte, out any) toolResult {
	t.Helper()
	var res toolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("tools/call: %v\n%s", err, raw)
	}
	if out == nil {
		return res
	}
	if res.IsError {
		t.Fatalf("tools/call: a tool error: %s", res.text())
	}
	if err := json.Unmarshal(res.StructuredContent, out); err != nil {
		t.Fatalf("tools/call: structured content %s: %v", res.StructuredContent, err)
	}
	return res
}
