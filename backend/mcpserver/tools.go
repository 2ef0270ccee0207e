package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/agent"
	"steward/backend/exchange"
	"steward/backend/fault"
	"steward/backend/run"
	"steward/backend/store"
)

// StartInput is start_run's input.
type StartInput struct {
	Agent        string `json:"agent,omitempty" jsonschema:"the agent to run, by name or id (default: the agent named default)"`
	Instructions string `json:"instructions" jsonschema:"what the agent should do"`
	Workspace    string `json:"workspace" jsonschema:"absolute path of the folder the agent works in"`
}

// ListInput is list_runs' input.
type ListInput struct {
	Status string `json:"status,omitempty" jsonschema:"only runs with this status: queued, running, pausing, waiting, paused, completed, failed or cancelled"`
	Agent  string `json:"agent,omitempty" jsonschema:"only runs of this agent (id or name)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many runs, newest first (default 20, at most 200)"`
}

// ListOutput is list_runs' result.
type ListOutput struct {
	Runs []RunSummary `json:"runs"`
}

// RunInput names a run.
type RunInput struct {
	RunID string `json:"run_id" jsonschema:"the run's id, as start_run or list_runs gave it"`
}

// CommandInput is send_command's input.
type CommandInput struct {
	RunID   string `json:"run_id" jsonschema:"the run's id"`
	Command string `json:"command" jsonschema:"pause, continue, steer or cancel"`
	Text    string `json:"text,omitempty" jsonschema:"with steer: the message for the agent"`
}

// CommandOutput is send_command's result.
type CommandOutput struct {
	Status  string  `json:"status"`
	Message string  `json:"message,omitempty"`
	Run     RunView `json:"run"`
}

// ExportInput is export_run's input.
type ExportInput struct {
	RunID  string `json:"run_id" jsonschema:"the run's id"`
	Format string `json:"format,omitempty" jsonschema:"steward (the recording, default) or html (a web page that replays it offline)"`
}

// ExportOutput is where export_run wrote the file.
type ExportOutput struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	Bytes  int64  `json:"bytes"`
	// Redactions are how many kinds of secret were removed, never what.
	Redactions int `json:"redactions"`
}

// commands are what send_command may send: the controls a caller needs to
// drive a run, none that edits its history (fork, retry, skip).
var commands = []string{run.CmdPause, run.CmdContinue, run.CmdSteer, run.CmdCancel}

// exportFormats are the formats export_run writes: the ones that need no
// browser recording and send nothing anywhere.
var exportFormats = []string{exchange.FormatSteward, exchange.FormatHTML}

// runStatuses are the statuses list_runs filters by.
var runStatuses = func() []any {
	var out []any
	for _, s := range run.Statuses {
		out = append(out, string(s))
	}
	return out
}()

func ptr[T any](v T) *T { return &v }

// schema is T's input schema with enums set on the named properties.
func schema[T any](enums map[string][]any) *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err)) // a programming error, found by every test
	}
	for name, vals := range enums {
		sc.Properties[name].Enum = vals
	}
	return sc
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func (s *Server) addTools() {
	closed := ptr(false)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "start_run",
		Description: "Start a run: an agent of Steward works on the instructions in the workspace folder. Tool calls that need approval wait for a person in Steward's UI. Returns the run; follow it with wait_run.",
		InputSchema: schema[StartInput](nil),
		// It creates a run and changes nothing else itself; what the agent
		// then does goes through the run's policy and approvals.
		Annotations: &mcp.ToolAnnotations{Title: "Start a run", DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
	}, s.startRun)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "list_runs",
		Description: "List Steward's runs, newest first, with their status and pending approvals.",
		InputSchema: schema[ListInput](map[string][]any{"status": runStatuses}),
		Annotations: &mcp.ToolAnnotations{Title: "List runs", ReadOnlyHint: true, OpenWorldHint: closed},
	}, s.listRuns)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "get_run",
		Description: "Read a run: status, the agent's last message, and the approvals or questions waiting for a person, with the link where the person answers them.",
		InputSchema: schema[RunInput](nil),
		Annotations: &mcp.ToolAnnotations{Title: "Read a run", ReadOnlyHint: true, OpenWorldHint: closed},
	}, s.getRun)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "wait_run",
		Description: fmt.Sprintf("Wait until a run ends or needs a person (an approval, a question, a pause), or until timeout_seconds pass "+
			"(default %d, at most %d); returns the run as get_run does, with timed_out when it is still going.", int(defaultWait.Seconds()), int(maxWait.Seconds())),
		InputSchema: schema[WaitInput](nil),
		Annotations: &mcp.ToolAnnotations{Title: "Wait for a run", ReadOnlyHint: true, OpenWorldHint: closed},
	}, s.waitRun)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "send_command",
		Description: "Control a run: pause (at its next safe point), continue (a paused run), steer (give the agent a message; needs text) or cancel (ends the run for good).",
		InputSchema: schema[CommandInput](map[string][]any{"command": anys(commands)}),
		// cancel ends a run and cannot be taken back.
		Annotations: &mcp.ToolAnnotations{Title: "Control a run", DestructiveHint: ptr(true), OpenWorldHint: closed},
	}, s.sendCommand)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "export_run",
		Description: "Export a run, redacted of keys and secrets, as a recording (.steward) or a web page (.html) that replays it offline, into Steward's exports folder; returns the file's path.",
		InputSchema: schema[ExportInput](map[string][]any{"format": anys(exportFormats)}),
		// It writes a new file under Steward's data directory, named after
		// the run: exporting again replaces it with the same content.
		Annotations: &mcp.ToolAnnotations{Title: "Export a run", DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: closed},
	}, s.exportRun)
}

// toolError makes err the tool's failure as the caller may see it: what
// was wrong with the request, or for a failure of the system, a pointer to
// the log, which has the details.
func (s *Server) toolError(tool string, err error) error {
	switch fault.Of(err) {
	case fault.Invalid, fault.NotFound, fault.Conflict, fault.Unsupported, fault.Unavailable:
		return err
	}
	s.cfg.Logf("mcp: %s: %v", tool, err)
	return errors.New("internal error in Steward; see its log")
}

// runError words a run lookup's failure.
func (s *Server) runError(tool, id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("run %q does not exist; list_runs lists the runs", id)
	}
	return s.toolError(tool, err)
}

func needRunID(id string) error {
	if strings.TrimSpace(id) == "" {
		return errors.New("run_id is empty: name a run by the id start_run or list_runs gave")
	}
	return nil
}

func (s *Server) startRun(ctx context.Context, _ *mcp.CallToolRequest, in StartInput) (*mcp.CallToolResult, RunView, error) {
	name := strings.TrimSpace(in.Agent)
	if name == "" {
		name = agent.DefaultName
	}
	if strings.TrimSpace(in.Instructions) == "" {
		return nil, RunView{}, errors.New("instructions are empty: say what the agent should do")
	}
	if strings.TrimSpace(in.Workspace) == "" {
		return nil, RunView{}, errors.New("workspace is missing: give the absolute path of the folder the agent works in")
	}
	// Steward's own working folder means nothing to the caller.
	if !filepath.IsAbs(in.Workspace) {
		return nil, RunView{}, fmt.Errorf("workspace %q is not an absolute path", in.Workspace)
	}
	a, err := s.cfg.Agents.Get(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, RunView{}, fmt.Errorf("agent %q does not exist; the agents are managed in Steward's UI", name)
	}
	if err != nil {
		return nil, RunView{}, s.toolError("start_run", err)
	}
	r, err := s.cfg.Runs.Start(ctx, run.StartParams{Agent: a, Instructions: in.Instructions, Workspace: in.Workspace})
	if err != nil {
		return nil, RunView{}, s.toolError("start_run", err)
	}
	v, err := s.view(ctx, r.ID)
	if err != nil {
		return nil, RunView{}, s.runError("start_run", r.ID, err)
	}
	return nil, v, nil
}

// defaultList and maxList bound list_runs.
const (
	defaultList = 20
	maxList     = 200
)

func (s *Server) listRuns(ctx context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	f := store.RunFilter{Limit: in.Limit}
	switch {
	case in.Limit == 0:
		f.Limit = defaultList
	case in.Limit < 0 || in.Limit > maxList:
		return nil, ListOutput{}, fmt.Errorf("limit %d is not between 1 and %d", in.Limit, maxList)
	}
	if in.Status != "" {
		if !slices.Contains(run.Statuses, run.Status(in.Status)) {
			return nil, ListOutput{}, fmt.Errorf("status %q is not a run status", in.Status)
		}
		f.Statuses = []string{in.Status}
	}
	if in.Agent != "" {
		a, err := s.cfg.Agents.Get(ctx, in.Agent)
		if errors.Is(err, store.ErrNotFound) {
			return nil, ListOutput{}, fmt.Errorf("agent %q does not exist", in.Agent)
		}
		if err != nil {
			return nil, ListOutput{}, s.toolError("list_runs", err)
		}
		f.Agent = a.ID
	}
	runs, err := s.cfg.Store.ListRuns(ctx, f)
	if err != nil {
		return nil, ListOutput{}, s.toolError("list_runs", err)
	}
	out := ListOutput{Runs: make([]RunSummary, len(runs))}
	for i, r := range runs {
		out.Runs[i] = s.summary(r)
	}
	return nil, out, nil
}

func (s *Server) getRun(ctx context.Context, _ *mcp.CallToolRequest, in RunInput) (*mcp.CallToolResult, RunView, error) {
	if err := needRunID(in.RunID); err != nil {
		return nil, RunView{}, err
	}
	v, err := s.view(ctx, in.RunID)
	if err != nil {
		return nil, RunView{}, s.runError("get_run", in.RunID, err)
	}
	return nil, v, nil
}

func (s *Server) sendCommand(ctx context.Context, _ *mcp.CallToolRequest, in CommandInput) (*mcp.CallToolResult, CommandOutput, error) {
	if err := needRunID(in.RunID); err != nil {
		return nil, CommandOutput{}, err
	}
	if !slices.Contains(commands, in.Command) {
		return nil, CommandOutput{}, fmt.Errorf("command %q is not one of %s", in.Command, strings.Join(commands, ", "))
	}
	if in.Command == run.CmdSteer && strings.TrimSpace(in.Text) == "" {
		return nil, CommandOutput{}, errors.New("steer needs text: the message for the agent")
	}
	if in.Command != run.CmdSteer && in.Text != "" {
		return nil, CommandOutput{}, fmt.Errorf("text goes with steer only, not with %s", in.Command)
	}
	if _, err := s.cfg.Store.GetRun(ctx, in.RunID); err != nil {
		return nil, CommandOutput{}, s.runError("send_command", in.RunID, err)
	}
	res, err := s.cfg.Runs.Command(ctx, in.RunID, run.Command{CommandID: s.cfg.NewID("cmd"), Type: in.Command, Text: in.Text})
	if err != nil {
		return nil, CommandOutput{}, s.runError("send_command", in.RunID, err)
	}
	// A command the run refuses now (cancel of a run that has ended) did
	// not do what was asked: the caller sees it as the tool's failure.
	if res.Status != "accepted" {
		return nil, CommandOutput{}, fmt.Errorf("%s was rejected (%s): %s", in.Command, res.Code, res.Message)
	}
	v, err := s.view(ctx, in.RunID)
	if err != nil {
		return nil, CommandOutput{}, s.runError("send_command", in.RunID, err)
	}
	return nil, CommandOutput{Status: res.Status, Message: res.Message, Run: v}, nil
}

func (s *Server) exportRun(ctx context.Context, _ *mcp.CallToolRequest, in ExportInput) (*mcp.CallToolResult, ExportOutput, error) {
	if err := needRunID(in.RunID); err != nil {
		return nil, ExportOutput{}, err
	}
	format := in.Format
	if format == "" {
		format = exchange.FormatSteward
	}
	if !slices.Contains(exportFormats, format) {
		return nil, ExportOutput{}, fmt.Errorf("format %q is not one of %s", format, strings.Join(exportFormats, ", "))
	}
	if s.cfg.Exchange == nil || s.cfg.ExportDir == "" {
		return nil, ExportOutput{}, errors.New("this Steward cannot export runs")
	}
	if _, err := s.cfg.Store.GetRun(ctx, in.RunID); err != nil {
		return nil, ExportOutput{}, s.runError("export_run", in.RunID, err)
	}
	if err := os.MkdirAll(s.cfg.ExportDir, 0o700); err != nil {
		return nil, ExportOutput{}, s.toolError("export_run", err)
	}
	// Written beside its place and renamed: a reader never sees half a file.
	tmp, err := os.CreateTemp(s.cfg.ExportDir, ".export-*")
	if err != nil {
		return nil, ExportOutput{}, s.toolError("export_run", err)
	}
	defer os.Remove(tmp.Name())
	ex, err := s.cfg.Exchange.Export(ctx, in.RunID, format, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, ExportOutput{}, s.runError("export_run", in.RunID, err)
	}
	// The file name comes from the exchange (the run id and the format's
	// extension); Base keeps it inside the folder whatever it holds.
	path := filepath.Join(s.cfg.ExportDir, filepath.Base(ex.Filename))
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, ExportOutput{}, s.toolError("export_run", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, ExportOutput{}, s.toolError("export_run", err)
	}
	return nil, ExportOutput{Path: path, Format: format, Bytes: fi.Size(), Redactions: len(ex.Manifest.Redactions)}, nil
}
