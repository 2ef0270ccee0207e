package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/policy"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// transports are the fixture served every way: over stdio (the SDK's
// client and server agree on 2026-07-28 there), over streamable HTTP
// (2025-11-25: the client's server/discover falls back to initialize) and
// over stateless streamable HTTP (2026-07-28), and over the deprecated
// HTTP+SSE transport (2025-11-25).
func transports(t *testing.T) map[string]mcp.Server {
	return map[string]mcp.Server{
		"stdio":          mcptest.Stdio(nil),
		"http":           {Type: mcp.TypeHTTP, URL: newHTTPFixture(t).URL},
		"http-stateless": {Type: mcp.TypeHTTP, URL: newHTTPFixtureOf(t, &sdk.StreamableHTTPOptions{Stateless: true}).URL},
		"sse":            {Type: mcp.TypeSSE, URL: newSSEFixture(t).URL},
	}
}

func TestToolsListedWithNamesSchemasAndRisks(t *testing.T) {
	t.Parallel()
	for kind, srv := range transports(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			reg, _, l := setup(t, map[string]mcp.Server{"fx": srv}, nil)
			specs := reg.Specs(mcp.Pattern("fx"))
			var names []string
			for _, s := range specs {
				names = append(names, s.Name)
			}
			want := []string{"mcp__fx__ask", "mcp__fx__big", "mcp__fx__capabilities", "mcp__fx__echo", "mcp__fx__exit", "mcp__fx__exit_soon", "mcp__fx__fail", "mcp__fx__freeze", "mcp__fx__getenv", "mcp__fx__hang", "mcp__fx__mixed_content", "mcp__fx__pictures", "mcp__fx__pid", "mcp__fx__probe", "mcp__fx__progress", "mcp__fx__protocol_error", "mcp__fx__structured", "mcp__fx__wipe"}
			if !slices.Equal(names, want) {
				t.Fatalf("tools %v, want %v (log: %s)", names, want, l)
			}
			if !strings.Contains(l.String(), "MCP server fx: tool bad_schema is not offered: its input schema is not valid") {
				t.Errorf("log %q does not say why bad_schema is left out", l)
			}
			echo, ok := reg.Lookup("mcp__fx__echo")
			if !ok {
				t.Fatal("mcp__fx__echo not found")
			}
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(echo.Schema, &schema); err != nil {
				t.Fatal(err)
			}
			if schema.Type != "object" || schema.Properties["text"] == nil || !slices.Contains(schema.Required, "text") {
				t.Errorf("echo's schema is not the server's: %s", echo.Schema)
			}
			if echo.Description != "Echo the text." {
				t.Errorf("description %q", echo.Description)
			}
			// Untrusted: the read-only annotation does not count.
			wantRisk := tool.RiskExec
			if kind != "stdio" {
				wantRisk = tool.RiskNetwork
			}
			for _, s := range specs {
				if s.Risk != wantRisk {
					t.Errorf("%s of an untrusted %s server has risk %s, want %s", s.Name, kind, s.Risk, wantRisk)
				}
			}
		})
	}
}

func TestCallResults(t *testing.T) {
	t.Parallel()
	for kind, srv := range transports(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			reg, _, _ := setup(t, map[string]mcp.Server{"fx": srv}, nil)
			env := tool.Env{RunID: "run_1"}
			for _, c := range []struct {
				name, tool, args string
				isError          bool
				code             string
				contains         []string
			}{
				{"text result", "mcp__fx__echo", `{"text":"hello"}`, false, "", []string{"echo: hello"}},
				{"isError is a tool error", "mcp__fx__fail", `{}`, true, mcp.CodeToolError, []string{"failed on purpose"}},
				// A broken server never stops the run: the model is told.
				{"a protocol error is a tool error", "mcp__fx__protocol_error", `{}`, true, mcp.CodeProtocol, []string{"MCP server fx", "protocol error on purpose"}},
				{"missing argument", "mcp__fx__echo", `{}`, true, tool.CodeInvalidArguments, []string{"text"}},
				{"argument of the wrong type", "mcp__fx__echo", `{"text": 7}`, true, tool.CodeInvalidArguments, []string{"text"}},
				{"output capped", "mcp__fx__big", `{}`, false, "", []string{"bytes cut"}},
				{"other content described", "mcp__fx__mixed_content", `{}`, false, "", []string{"some text", "[image image/png, 5 bytes",
					"[resource link file:///tmp/report.txt name=report type=text/plain]", `structuredContent: {"count":2}`}},
			} {
				res, err := reg.Call(context.Background(), env, c.tool, json.RawMessage(c.args))
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if res.IsError != c.isError || res.Code != c.code {
					t.Errorf("%s: is_error %v code %q, want %v %q: %s", c.name, res.IsError, res.Code, c.isError, c.code, res.Output)
				}
				for _, s := range c.contains {
					if !strings.Contains(res.Output, s) {
						t.Errorf("%s: output %.300q lacks %q", c.name, res.Output, s)
					}
				}
				if len(res.Output) > tool.DefaultMaxOutput+100 {
					t.Errorf("%s: output of %d bytes is over the cap", c.name, len(res.Output))
				}
			}
		})
	}
}

// Steward claims elicitation (form and url) and no other client
// capability: it keeps no roots (the SDK's default claims roots, which
// servers act on: server-filesystem asks for them, server-everything
// offers a get-roots-list tool) and answers no sampling request.
func TestClientClaimsElicitationAlone(t *testing.T) {
	t.Parallel()
	for kind, srv := range transports(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			reg, _, _ := setup(t, map[string]mcp.Server{"fx": srv}, nil)
			res, err := reg.Call(context.Background(), tool.Env{RunID: "run_1"}, "mcp__fx__capabilities", json.RawMessage(`{}`))
			if err != nil || res.IsError {
				t.Fatalf("%+v, %v", res, err)
			}
			if want := `{"elicitation":{"form":{},"url":{}}}`; res.Output != want {
				t.Errorf("the client claims %s, want %s", res.Output, want)
			}
		})
	}
}

// Structured content is read once: not when the text blocks say each of
// its fields, and whole when they do not.
func TestStructuredContentReadOnce(t *testing.T) {
	t.Parallel()
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(nil)}, nil)
	env := tool.Env{RunID: "run_1"}
	res, err := reg.Call(context.Background(), env, "mcp__fx__structured", json.RawMessage(`{}`))
	if want := "file text\n[{\"n\": 1}]"; err != nil || res.Output != want {
		t.Errorf("said: %+v, %v; want %q", res, err, want)
	}
	res, err = reg.Call(context.Background(), env, "mcp__fx__structured", json.RawMessage(`{"extra": true}`))
	if want := "file text\n[{\"n\": 1}]\nstructuredContent: {\"content\":\"file text\",\"extra\":3,\"items\":[{\"n\":1}]}"; err != nil || res.Output != want {
		t.Errorf("not all said: %+v, %v; want %q", res, err, want)
	}
}

func TestServerExitingMidCallIsAToolErrorAndTheNextCallRestartsIt(t *testing.T) {
	t.Parallel()
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(nil)}, nil)
	env := tool.Env{RunID: "run_1"}
	res, err := reg.Call(context.Background(), env, "mcp__fx__exit", json.RawMessage(`{}`))
	if err != nil {
		t.Fatalf("a server that exits is a tool error, not a system error: %v", err)
	}
	if !res.IsError || res.Code != mcp.CodeUnavailable || !strings.Contains(res.Output, "MCP server fx") ||
		!strings.Contains(res.Output, "exiting in the middle of a call") {
		t.Errorf("result %+v: want %s naming the server and its last words", res, mcp.CodeUnavailable)
	}
	res, err = reg.Call(context.Background(), env, "mcp__fx__echo", json.RawMessage(`{"text":"again"}`))
	if err != nil || res.IsError || res.Output != "echo: again" {
		t.Errorf("the run's next call: %+v, %v; want the server started again", res, err)
	}
}

func TestServerThatCannotStartIsNamed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		srv  mcp.Server
		want []string
	}{
		{"no such command", mcp.Server{Command: "/nonexistent/steward-mcp-server"}, []string{"MCP server broken could not be started", "no such file"}},
		{"garbage on stdout", mcptest.Stdio(mcptest.Garbage), []string{"MCP server broken could not be started", "printed garbage"}},
		{"http server not there", mcp.Server{Type: mcp.TypeHTTP, URL: "http://127.0.0.1:1/mcp"}, []string{"MCP server broken could not be started"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			reg, m, l := setup(t, map[string]mcp.Server{"broken": c.srv}, nil)
			if specs := reg.Specs(mcp.Pattern("broken")); len(specs) != 0 {
				t.Errorf("a broken server offers %v", specs)
			}
			for _, w := range c.want {
				if !strings.Contains(l.String(), w) {
					t.Errorf("log %q lacks %q", l, w)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := m.Sources()[0].Tools(ctx)
			if err == nil || !strings.Contains(err.Error(), c.want[0]) {
				t.Errorf("listing: %v, want an error saying %q", err, c.want[0])
			}
		})
	}
}

func TestHangingCallEndsByCancelAndByDeadline(t *testing.T) {
	t.Parallel()
	for kind, srv := range transports(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			reg, _, _ := setup(t, map[string]mcp.Server{"fx": srv}, nil)
			reg.Timeout = 700 * time.Millisecond
			env := tool.Env{RunID: "run_1"}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			res, err := reg.Call(ctx, env, "mcp__fx__hang", json.RawMessage(`{}`))
			if err != nil || res.Code != tool.CodeCancelled {
				t.Errorf("cancelled: %+v, %v; want %s", res, err, tool.CodeCancelled)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("cancel took %s", d)
			}
			res, err = reg.Call(context.Background(), env, "mcp__fx__hang", json.RawMessage(`{}`))
			if err != nil || res.Code != tool.CodeTimeout {
				t.Errorf("deadline: %+v, %v; want %s", res, err, tool.CodeTimeout)
			}
			// The session outlives calls that were cancelled.
			res, err = reg.Call(context.Background(), env, "mcp__fx__echo", json.RawMessage(`{"text":"still here"}`))
			if err != nil || res.Output != "echo: still here" {
				t.Errorf("after the hangs: %+v, %v", res, err)
			}
		})
	}
}

func TestBearerTokenFromEnvIsSentAndNeverShown(t *testing.T) {
	t.Parallel()
	const token = "s3cret-fixture-token"
	f := newHTTPFixture(t)
	getenv := func(k string) string {
		if k == "FIXTURE_TOKEN" {
			return token
		}
		return ""
	}
	reg, m, l := setup(t, map[string]mcp.Server{
		"fx":    {Type: mcp.TypeHTTP, URL: f.URL, BearerTokenEnv: "FIXTURE_TOKEN", Headers: map[string]string{"X-Team": "steward"}},
		"nokey": {Type: mcp.TypeHTTP, URL: f.URL, BearerTokenEnv: "UNSET_TOKEN"},
	}, getenv)
	env := tool.Env{RunID: "run_1"}
	var outputs []string
	for _, c := range []struct{ tool, args string }{{"mcp__fx__echo", `{"text":"hi"}`}, {"mcp__fx__fail", `{}`}, {"mcp__fx__mixed_content", `{}`}} {
		res, err := reg.Call(context.Background(), env, c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, res.Output)
	}
	reg.Specs(mcp.Pattern("nokey"))
	auths := f.authorizations()
	if len(auths) == 0 {
		t.Fatal("the fixture saw no request")
	}
	for _, a := range auths {
		if a != "Bearer "+token && a != "" {
			t.Errorf("Authorization %q", a)
		}
	}
	if !slices.Contains(auths, "Bearer "+token) {
		t.Errorf("no request carried the token: %q", auths)
	}
	if !strings.Contains(l.String(), "UNSET_TOKEN (bearer_token_env) is not set") {
		t.Errorf("log %q does not say the token's variable is unset", l)
	}
	for _, s := range append(outputs, l.String()) {
		if strings.Contains(s, token) {
			t.Errorf("the token shows in %q", s)
		}
	}
	if !slices.Contains(m.Secrets(), token) {
		t.Errorf("Secrets %q lack the token: the redactor would not know it", m.Secrets())
	}
	withHeaders := mcp.New(mcp.Options{Getenv: getenv, Servers: map[string]mcp.Server{
		"h": {Type: mcp.TypeHTTP, URL: f.URL,
			Headers: map[string]string{"Authorization": "Bearer literal-token", "X-Api-Key": "${FIXTURE_TOKEN}", "X-Team": "steward"}},
		"s": {Command: "x", Env: map[string]string{"GITHUB_TOKEN": "env-token", "LOG_LEVEL": "debug"}},
	}})
	got := withHeaders.Secrets()
	slices.Sort(got)
	if want := []string{"Bearer literal-token", "env-token", "literal-token", token}; !slices.Equal(got, want) {
		t.Errorf("Secrets of headers and env %q, want %q", got, want)
	}
}

func TestSanitizedNamesThatCollideAreAnErrorNamingBoth(t *testing.T) {
	t.Parallel()
	_, m, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(map[string]string{mcptest.ExtraEnv: "1"})}, nil)
	_, err := m.Sources()[0].Tools(context.Background())
	if err == nil || !strings.Contains(err.Error(), `"mixed.content"`) || !strings.Contains(err.Error(), `"mixed_content"`) ||
		!strings.Contains(err.Error(), "mcp__fx__mixed_content") {
		t.Errorf("err %v: want both tools and the name they share", err)
	}
}

// TestRiskFromAnnotationsOnlyWhenTrusted decides calls with the policy on
// the risks the registry gives the server's tools.
func TestRiskFromAnnotationsOnlyWhenTrusted(t *testing.T) {
	t.Parallel()
	trusted := mcptest.Stdio(nil)
	trusted.Trusted = true
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(nil), "tr": trusted}, nil)
	for _, c := range []struct {
		tool  string
		risk  tool.Risk
		modes map[policy.Mode]policy.Effect
	}{
		{"mcp__fx__echo", tool.RiskExec, map[policy.Mode]policy.Effect{policy.ModeAsk: policy.Ask, policy.ModeEdits: policy.Ask, policy.ModePlan: policy.Deny, policy.ModeAuto: policy.Allow}},
		{"mcp__tr__echo", tool.RiskRead, map[policy.Mode]policy.Effect{policy.ModeAsk: policy.Allow, policy.ModeEdits: policy.Allow, policy.ModePlan: policy.Allow}},
		{"mcp__tr__wipe", tool.RiskDestructive, map[policy.Mode]policy.Effect{policy.ModeAsk: policy.Ask, policy.ModeEdits: policy.Ask}},
		{"mcp__tr__fail", tool.RiskDestructive, nil}, // no annotations: the specification's defaults
		{"mcp__tr__mixed_content", tool.RiskWrite, map[policy.Mode]policy.Effect{policy.ModeAsk: policy.Ask, policy.ModeEdits: policy.Allow}},
	} {
		spec, ok := reg.Lookup(c.tool)
		if !ok {
			t.Fatalf("%s not found", c.tool)
		}
		if spec.Risk != c.risk {
			t.Errorf("%s: risk %s, want %s", c.tool, spec.Risk, c.risk)
		}
		for mode, want := range c.modes {
			d := policy.Decide(policy.Input{Mode: mode, Tool: c.tool, Risk: spec.Risk, Args: json.RawMessage(`{"text":"x"}`)})
			if d.Effect != want {
				t.Errorf("%s in mode %s: %s (%s), want %s", c.tool, mode, d.Effect, d.Reason, want)
			}
		}
	}
}

// A stdio server gets the environment of every program Steward starts and
// its configured env, never the rest of Steward's environment.
func TestStdioServerEnvironment(t *testing.T) {
	t.Setenv("STEWARD_MCP_PROBE_SECRET", "not for servers")
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(map[string]string{"FIXTURE_SETTING": "from config"})}, nil)
	for name, want := range map[string]string{"STEWARD_MCP_PROBE_SECRET": "", "FIXTURE_SETTING": "from config", "PATH": os.Getenv("PATH")} {
		res, err := reg.Call(context.Background(), tool.Env{RunID: "run_1"}, "mcp__fx__getenv", json.RawMessage(`{"name":"`+name+`"}`))
		if err != nil || res.Output != name+"="+want {
			t.Errorf("%s: %+v, %v; want %q", name, res, err, want)
		}
	}
}

// Each run has its own server process, which ends with the run.
func TestOneServerProcessPerRunEndedWithIt(t *testing.T) {
	t.Parallel()
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(nil)}, nil)
	pid := func(run string) int {
		res, err := reg.Call(context.Background(), tool.Env{RunID: run}, "mcp__fx__pid", json.RawMessage(`{}`))
		if err != nil || res.IsError {
			t.Fatalf("pid in %s: %+v, %v", run, res, err)
		}
		n, err := strconv.Atoi(res.Output)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	p1, p2 := pid("run_1"), pid("run_2")
	if p1 == p2 || pid("run_1") != p1 {
		t.Fatalf("run_1 has %d, run_2 %d: want one process per run, kept between its calls", p1, p2)
	}
	if _, err := reg.EndRun(context.Background(), tool.Env{RunID: "run_1"}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(p1, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("run_1's server %d after the run's end: %v, want it gone", p1, err)
	}
	if err := syscall.Kill(p2, 0); err != nil {
		t.Errorf("run_2's server %d ended with run_1: %v", p2, err)
	}
}

// An old stdio server that exits on server/discover still connects with
// protocol auto: it is started again and asked with initialize, and its
// later sessions start with initialize at once. modern refuses it; legacy
// asks with initialize from the start.
func TestProtocolEras(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	starts := func(name string) map[string]string {
		e := map[string]string{mcptest.StartsEnv: filepath.Join(dir, name)}
		for k, v := range mcptest.Legacy {
			e[k] = v
		}
		return e
	}
	count := func(name string) int {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), "\n")
	}
	old := mcptest.Stdio(starts("old"))
	modern := mcptest.Stdio(starts("modern"))
	modern.Protocol = mcp.ProtocolModern
	legacy := mcptest.Stdio(starts("new"))
	legacy.Protocol = mcp.ProtocolLegacy
	reg, _, l := setup(t, map[string]mcp.Server{"old": old, "modern": modern, "new": legacy}, nil)

	for _, run := range []string{"run_1", "run_2"} {
		res, err := reg.Call(context.Background(), tool.Env{RunID: run}, "mcp__old__echo", json.RawMessage(`{"text":"old"}`))
		if err != nil || res.Output != "echo: old" {
			t.Fatalf("%s: %+v, %v (log: %s)", run, res, err, l)
		}
	}
	// The listing: discover (exit), then initialize; each run: initialize.
	if n := count("old"); n != 4 {
		t.Errorf("the old server started %d times, want 4: the era found is not remembered", n)
	}
	if !strings.Contains(l.String(), "MCP server old exits on server/discover") {
		t.Errorf("log %q", l)
	}
	if specs := reg.Specs(mcp.Pattern("modern")); len(specs) != 0 {
		t.Errorf("protocol modern took an old server: %v", specs)
	}
	if !strings.Contains(l.String(), "MCP server modern could not be started") || !strings.Contains(l.String(), "exiting on server/discover") {
		t.Errorf("log %q does not say why modern failed", l)
	}
	if n := count("modern"); n != 1 {
		t.Errorf("protocol modern started the server %d times, want 1", n)
	}
	res, err := reg.Call(context.Background(), tool.Env{RunID: "run_1"}, "mcp__new__echo", json.RawMessage(`{"text":"legacy"}`))
	if err != nil || res.Output != "echo: legacy" {
		t.Errorf("protocol legacy: %+v, %v", res, err)
	}
	if n := count("new"); n != 2 {
		t.Errorf("protocol legacy started the server %d times, want 2 (the listing, the run): it probed first", n)
	}
}

// A server whose tools were listed and that cannot start for a run gives
// the model a tool error naming it and what it said; nothing else fails.
func TestServerThatCannotStartForARunIsAToolError(t *testing.T) {
	t.Parallel()
	once := mcptest.Stdio(map[string]string{mcptest.StartsEnv: filepath.Join(t.TempDir(), "starts"), mcptest.OnceEnv: "1"})
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": once}, nil)
	if _, ok := reg.Lookup("mcp__fx__echo"); !ok {
		t.Fatal("the listing failed")
	}
	res, err := reg.Call(context.Background(), tool.Env{RunID: "run_1"}, "mcp__fx__echo", json.RawMessage(`{"text":"x"}`))
	if err != nil {
		t.Fatalf("a server that cannot start is a tool error, not a system error: %v", err)
	}
	if !res.IsError || res.Code != mcp.CodeUnavailable || !strings.Contains(res.Output, "MCP server fx could not be started") ||
		!strings.Contains(res.Output, "refusing to start again") {
		t.Errorf("result %+v: want %s naming the server and what it said", res, mcp.CodeUnavailable)
	}
}

// ${VAR} and ${VAR:-default} in a server's fields are read from the
// environment when it is reached, as Claude Code does; an unset one is an
// error naming it and the field.
func TestVariablesExpandedWhenTheServerIsReached(t *testing.T) {
	t.Parallel()
	f := newHTTPFixture(t)
	getenv := func(k string) string {
		return map[string]string{"FIXTURE_URL": f.URL, "FIXTURE_TOKEN": "tok-from-env", "SETTING_SRC": "expanded"}[k]
	}
	stdio := mcptest.Stdio(map[string]string{"FIXTURE_SETTING": "${SETTING_SRC}", "FIXTURE_OTHER": "${UNSET_ONE:-the default}"})
	reg, _, l := setup(t, map[string]mcp.Server{
		"web":    {Type: mcp.TypeHTTP, URL: "${FIXTURE_URL}", Headers: map[string]string{"Authorization": "Bearer ${FIXTURE_TOKEN}"}},
		"local":  stdio,
		"broken": {Type: mcp.TypeHTTP, URL: f.URL, Headers: map[string]string{"X-Key": "${NOT_SET_ANYWHERE}"}},
	}, getenv)
	env := tool.Env{RunID: "run_1"}
	res, err := reg.Call(context.Background(), env, "mcp__web__echo", json.RawMessage(`{"text":"hi"}`))
	if err != nil || res.Output != "echo: hi" {
		t.Fatalf("web: %+v, %v (log: %s)", res, err, l)
	}
	if !slices.Contains(f.authorizations(), "Bearer tok-from-env") {
		t.Errorf("authorizations %q", f.authorizations())
	}
	for name, want := range map[string]string{"FIXTURE_SETTING": "expanded", "FIXTURE_OTHER": "the default"} {
		res, err := reg.Call(context.Background(), env, "mcp__local__getenv", json.RawMessage(`{"name":"`+name+`"}`))
		if err != nil || res.Output != name+"="+want {
			t.Errorf("local %s: %+v, %v", name, res, err)
		}
	}
	if specs := reg.Specs(mcp.Pattern("broken")); len(specs) != 0 || !strings.Contains(l.String(), "MCP server broken: headers.X-Key names ${NOT_SET_ANYWHERE}, which is not set") {
		t.Errorf("broken: %v, log %q", specs, l)
	}
}
