package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestE2EStewardAsMCPServerOverStdio: `steward mcp` started as an MCP
// client starts it (Claude Code's `claude mcp add steward -- steward mcp`)
// offers its tools over stdio, starts a run of the demo script that waits
// for a person, and serves the UI where that person answers: the run's
// link, which holds no token, opens nothing without the session; the
// token URL printed on stderr does.
func TestE2EStewardAsMCPServerOverStdio(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(stewardBin(t), "mcp", "--addr", "127.0.0.1:0")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STEWARD_HOME=" + home, "STEWARD_DISCOVER=0"}
	logs := &lockedBuffer{}
	cmd.Stderr = writerFunc(logs.addRaw)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to steward mcp: %v\n%s", err, logs)
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v\n%s", err, logs)
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("steward mcp did not exit 0 when its client left: %v\n%s", cmd.ProcessState, logs)
		}
	}()
	if v := cs.InitializeResult().ServerInfo; v.Name != "steward" {
		t.Errorf("server info %+v", v)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"export_run", "get_run", "list_runs", "send_command", "start_run", "wait_run"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	call := func(name string, args map[string]any, out any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, logs)
		}
		if res.IsError {
			t.Fatalf("%s: tool error %+v", name, res.Content)
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %s: %v", name, b, err)
		}
	}
	var list struct {
		Runs []struct{ ID string } `json:"runs"`
	}
	call("list_runs", map[string]any{}, &list)
	if len(list.Runs) != 0 {
		t.Errorf("a fresh data directory lists runs: %+v", list)
	}
	type view struct {
		ID      string `json:"id"`
		Status  string `json:"status"`
		UIURL   string `json:"ui_url"`
		Ended   bool   `json:"ended"`
		Pending []struct {
			Tool string `json:"tool"`
		} `json:"pending"`
	}
	var started view
	call("start_run", map[string]any{"instructions": "write the demo note", "workspace": ws}, &started)
	var waited view
	call("wait_run", map[string]any{"run_id": started.ID, "timeout_seconds": 60}, &waited)
	if waited.Ended || len(waited.Pending) != 1 || waited.Pending[0].Tool != "write_file" {
		t.Fatalf("wait_run = %+v, want the write waiting for a person", waited)
	}
	call("list_runs", map[string]any{}, &list)
	if len(list.Runs) != 1 || list.Runs[0].ID != started.ID {
		t.Errorf("list_runs = %+v, want %s", list, started.ID)
	}
	// The link is this process's UI, with no token in it.
	base, _, ok := strings.Cut(started.UIURL, "#run=")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") || strings.Contains(started.UIURL, "token") {
		t.Fatalf("ui_url %q", started.UIURL)
	}
	res, err := http.Get(base + "api/v1/runs/" + started.ID)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the API without the token: %d", res.StatusCode)
	}
	if !strings.Contains(logs.String(), base+"?token=") {
		t.Errorf("stderr lacks the UI's token URL %s?token=...:\n%s", base, logs)
	}
}

// TestE2EServeOffersMCPOverHTTP: `steward serve` answers MCP at /mcp
// (streamable HTTP) to a client that sends the token, and to no other.
func TestE2EServeOffersMCPOverHTTP(t *testing.T) {
	t.Parallel()
	s := startServe(t, t.TempDir())
	_, tok, _ := strings.Cut(s.url, "?token=")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect := func(bearer string) (*mcp.ClientSession, error) {
		hc := &http.Client{Transport: bearerTransport{token: bearer, base: http.DefaultTransport}}
		return mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: hc}, nil)
	}
	if cs, err := connect(""); err == nil {
		cs.Close()
		t.Fatal("connected without the token")
	}
	if cs, err := connect("wrong-token-0123456789"); err == nil {
		cs.Close()
		t.Fatal("connected with a wrong token")
	}
	cs, err := connect(tok)
	if err != nil {
		t.Fatalf("connect with the token: %v\n%s", err, s.logs)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "start_run", Arguments: map[string]any{"instructions": "x", "workspace": "relative"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Errorf("a relative workspace was taken: %+v", res.Content)
	}
	var list struct {
		Runs []any `json:"runs"`
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_runs", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_runs: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &list); err != nil || list.Runs == nil {
		t.Errorf("list_runs: %s (%v)", b, err)
	}
}

// bearerTransport sends the token, when there is one, as a program does.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.base.RoundTrip(r)
}
