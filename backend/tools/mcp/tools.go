package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/tool"
)

// source offers one server's tools to the registry.
type source struct {
	m    *Manager
	name string
}

// Prefix implements tool.Source.
func (s *source) Prefix() string { return Prefix(s.name) }

// Tools implements tool.Source: it lists the server's tools on a session
// of its own, closed before it returns.
func (s *source) Tools(ctx context.Context) ([]tool.Tool, error) {
	cs, err := s.m.connect(ctx, s.name, s.m.o.ListIn)
	if err != nil {
		s.m.o.Logf("%v", err)
		return nil, err
	}
	defer func() {
		if err := cs.close(); err != nil {
			s.m.o.Logf("MCP server %s: close the listing session: %v", s.name, err)
		}
	}()
	cfg, ok := s.m.server(s.name)
	if !ok {
		return nil, fmt.Errorf("MCP server %s is not configured", s.name)
	}
	var out []tool.Tool
	remote := map[string]string{} // Steward name → the server's
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			err = fmt.Errorf("MCP server %s: list tools: %w", s.name, err)
			s.m.o.Logf("%v", err)
			return nil, err
		}
		name, err := ToolName(s.name, t.Name)
		if err != nil {
			return nil, err
		}
		if other, dup := remote[name]; dup {
			return nil, collision(s.name, name, other, t.Name)
		}
		remote[name] = t.Name
		// A tool whose schema cannot check its arguments is left out, and
		// the log says so: the server's other tools are still of use.
		schema, err := inputSchema(t)
		if err != nil {
			s.m.o.Logf("MCP server %s: tool %s is not offered: its input schema is not valid: %v", s.name, t.Name, err)
			continue
		}
		out = append(out, &remoteTool{m: s.m, server: s.name, remote: t.Name, key: cfg.key(t.Name), spec: tool.Spec{
			Name: name, Description: description(t), Risk: risk(cfg, t.Annotations), RiskNote: riskNote(s.name, cfg), Schema: schema,
			// A stdio server's program runs in the run's sandbox
			// (confine.go): where the sandbox cannot confine it, its calls
			// ask as commands do, and mode on denies them.
			Sandboxed: cfg.transport() == TypeStdio && s.m.o.Sandbox != nil,
		}})
	}
	return out, nil
}

// inputSchema is t's input schema, or why the registry could not check
// arguments against it.
func inputSchema(t *sdk.Tool) (json.RawMessage, error) {
	if t.InputSchema == nil {
		return nil, errors.New("it has none")
	}
	schema, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, err
	}
	return schema, tool.CheckSchema(schema)
}

// maxDescription bounds what a server's description of one tool adds to
// every model call: it is the server's text, of any length it likes.
const maxDescription = 4 << 10

// description is what the model is told of a tool: the server's words,
// capped.
func description(t *sdk.Tool) string {
	d := t.Description
	if d == "" {
		d = t.Title
	}
	return tool.Truncate(d, maxDescription)
}

// remoteTool is one tool of one server.
type remoteTool struct {
	m      *Manager
	server string
	remote string // the server's name for it
	key    string // the argument that is a call's key (Server.Keys), if any
	spec   tool.Spec
}

// Spec implements tool.Tool.
func (t *remoteTool) Spec() tool.Spec { return t.spec }

// Run implements tool.Tool: it calls the tool on the run's session with the
// server, which it opens at the run's first call (and again after the
// server crashed). The registry has checked args against the server's
// schema, and holds the deadline: ctx ending cancels the call on the
// server too (the SDK sends notifications/cancelled).
func (t *remoteTool) Run(ctx context.Context, env tool.Env, args json.RawMessage) (tool.Result, error) {
	ss, c, err := t.m.session(ctx, env, t.server)
	if err != nil {
		return tool.Errorf(CodeUnavailable, err.Error()), nil
	}
	ctx, done := t.m.asking.calling(ctx, ss.ClientSession, env, t.server)
	defer done()
	params := &sdk.CallToolParams{Name: t.remote, Arguments: args}
	if env.Progress != nil {
		token, stop := t.m.watchProgress(ss, env.Progress)
		params.SetProgressToken(token)
		defer stop(ctx)
	}
	res, err := ss.CallTool(ctx, params)
	var wire *jsonrpc.Error
	switch {
	case err == nil:
		c.answered()
	case ctx.Err() != nil:
		// The registry says cancelled or timed out; the session stays.
		// A call that ran out of time may mean the server hangs: the next
		// call asks it first.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			c.timedOut()
		}
		return tool.Errorf(CodeUnavailable, err.Error()), nil
	case errors.As(err, &wire):
		// The server answered, with a protocol error: a bug on one side.
		// The model is told, and the run goes on: a broken server never
		// stops it (the call's node says the code, the person sees it).
		c.answered()
		return tool.Errorf(CodeProtocol, fmt.Sprintf("MCP server %s answered the call of %s with a protocol error: %v", t.server, t.remote, err)), nil
	default:
		// No answer: the server stopped or cannot be reached. The next
		// call of the run starts it again, after the backoff.
		crash := t.m.lost(env, t.server, c, ss, err)
		if crash == "" {
			crash = "stopped; the run's next call starts it again"
		}
		return tool.Errorf(CodeUnavailable, fmt.Sprintf("MCP server %s stopped or could not be reached during the call of %s: %v; it %s%s",
			t.server, t.remote, err, crash, ss.tail.say())), nil
	}
	pics := &pictures{env: env, server: t.server, tool: t.remote}
	out := output(res, pics)
	if res.IsError {
		return tool.Result{Output: out, IsError: true, Code: CodeToolError, Artifacts: pics.kept}, nil
	}
	return tool.Result{Output: out, Artifacts: pics.kept}, nil
}
