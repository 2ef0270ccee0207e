package mcp_test

// Steward's client against the real MCP servers of npm that
// testdata/mcp-npm pins (server-everything, server-filesystem and
// server-memory, written with the TypeScript SDK), over stdio: what the
// fixture, written with the same Go SDK as the client, cannot show.
// mcptest.NPMDir says how they are found.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/elicit"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// call calls name and fails the test on a system error.
func call(t *testing.T, reg *tool.Registry, env tool.Env, name, args string) tool.Result {
	t.Helper()
	res, err := reg.Call(context.Background(), env, name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return res
}

// server-everything's form asks for every kind of field MCP allows: the
// person sees it, and what they answer, defaults filled in, is what the
// server reads.
func TestNPMEverythingElicitation(t *testing.T) {
	t.Parallel()
	srv := mcptest.NPMServer(t, "@modelcontextprotocol/server-everything", "stdio")
	reg, _, l := setup(t, map[string]mcp.Server{"every": srv}, nil)
	var asked []tool.Elicitation
	env := tool.Env{RunID: "run_1", Elicit: func(_ context.Context, q tool.Elicitation) (tool.ElicitAnswer, error) {
		asked = append(asked, q)
		content, err := elicit.Content(q.Schema, json.RawMessage(`{"name": "Ada Lovelace", "email": "ada@example.com", "integer": 7}`))
		return tool.ElicitAnswer{Action: tool.ElicitAccept, Content: content}, err
	}}
	res := call(t, reg, env, "mcp__every__trigger-elicitation-request", `{}`)
	if res.IsError {
		t.Fatalf("%+v (log: %s)", res, l)
	}
	for _, want := range []string{"User provided the requested information", "- Name: Ada Lovelace", "- Email: ada@example.com",
		"- Favorite Integer: 7", "- Favorite Number: 3.14"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("the server read %q, without %q", res.Output, want)
		}
	}
	if len(asked) != 1 || asked[0].Server != "every" || len(asked[0].Schema) == 0 {
		t.Fatalf("asked %+v", asked)
	}
	env.Elicit = func(context.Context, tool.Elicitation) (tool.ElicitAnswer, error) {
		return tool.ElicitAnswer{Action: tool.ElicitDecline}, nil
	}
	if res := call(t, reg, env, "mcp__every__trigger-elicitation-request", `{}`); !strings.Contains(res.Output, "declined") {
		t.Errorf("declined: the server read %q", res.Output)
	}
}

func TestNPMEverythingTools(t *testing.T) {
	t.Parallel()
	srv := mcptest.NPMServer(t, "@modelcontextprotocol/server-everything", "stdio")
	reg, _, l := setup(t, map[string]mcp.Server{"every": srv}, nil)
	var names []string
	for _, s := range reg.Specs(mcp.Pattern("every")) {
		names = append(names, s.Name)
		if s.Risk != tool.RiskExec {
			t.Errorf("%s of an untrusted stdio server has risk %s, want %s", s.Name, s.Risk, tool.RiskExec)
		}
	}
	// The tools server-everything registers for every client, and those
	// for a client that takes elicitation (the others need sampling or
	// roots, which Steward does not offer); names with '-' are kept as
	// they are.
	for _, want := range []string{"mcp__every__echo", "mcp__every__get-sum", "mcp__every__get-tiny-image",
		"mcp__every__trigger-long-running-operation", "mcp__every__gzip-file-as-resource", "mcp__every__get-structured-content",
		"mcp__every__trigger-elicitation-request"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s (log: %s)", names, want, l)
		}
	}
	for _, n := range names {
		if strings.Contains(n, "sampling") || strings.Contains(n, "roots") {
			t.Errorf("%s is offered: the server thinks Steward has a capability it does not", n)
		}
	}
	sum, ok := reg.Lookup("mcp__every__get-sum")
	if !ok {
		t.Fatal("mcp__every__get-sum not found")
	}
	var schema struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(sum.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Properties["a"].Type != "number" || !slices.Contains(schema.Required, "b") {
		t.Errorf("get-sum's schema is not the server's: %s", sum.Schema)
	}
	if sum.Description != "Returns the sum of two numbers" {
		t.Errorf("get-sum's description %q", sum.Description)
	}

	env := tool.Env{RunID: "run_1"}
	for _, c := range []struct {
		name, tool, args string
		isError          bool
		code             string
		contains         []string
	}{
		{"echo", "mcp__every__echo", `{"message":"hello from Steward"}`, false, "", []string{"Echo: hello from Steward"}},
		{"add", "mcp__every__get-sum", `{"a": 2, "b": 40.5}`, false, "", []string{"The sum of 2 and 40.5 is 42.5."}},
		// Checked against the server's schema before the server sees it.
		{"argument of the wrong type", "mcp__every__get-sum", `{"a": "2", "b": 3}`, true, tool.CodeInvalidArguments, []string{"a"}},
		// The server's handler throws; the TypeScript SDK answers with
		// isError and the message.
		{"isError is a tool error", "mcp__every__gzip-file-as-resource", `{"data": "file:///etc/passwd"}`, true, mcp.CodeToolError,
			[]string{"Unsupported URL protocol for file:///etc/passwd"}},
		{"structured content", "mcp__every__get-structured-content", `{"location": "New York"}`, false, "", []string{`"temperature"`}},
		// gzip of a data: URI (no network), as an embedded resource.
		{"embedded blob", "mcp__every__gzip-file-as-resource", `{"name": "hi.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resource"}`,
			false, "", []string{"application/gzip", "bytes of binary content: not shown"}},
		{"resource link", "mcp__every__gzip-file-as-resource", `{"name": "hi.gz", "data": "data:text/plain;base64,aGVsbG8="}`,
			false, "", []string{"[resource link ", "name=hi.gz", "type=application/gzip"}},
	} {
		res := call(t, reg, env, c.tool, c.args)
		if res.IsError != c.isError || res.Code != c.code {
			t.Errorf("%s: is_error %v code %q, want %v %q: %s", c.name, res.IsError, res.Code, c.isError, c.code, res.Output)
		}
		for _, s := range c.contains {
			if !strings.Contains(res.Output, s) {
				t.Errorf("%s: output %.400q lacks %q", c.name, res.Output, s)
			}
		}
	}
}

func TestNPMEverythingImage(t *testing.T) {
	t.Parallel()
	srv := mcptest.NPMServer(t, "@modelcontextprotocol/server-everything", "stdio")
	reg, _, _ := setup(t, map[string]mcp.Server{"every": srv}, nil)
	dir := t.TempDir()
	res := call(t, reg, tool.Env{RunID: "run_1", NodeID: "node_3", Artifacts: dir}, "mcp__every__get-tiny-image", `{}`)
	if res.IsError {
		t.Fatalf("get-tiny-image: %s", res.Output)
	}
	// The text around the picture, in order, and the picture described:
	// the SDK decodes the base64, so the size is the PNG's (the pinned
	// server's 20×20 MCP logo), not its base64's.
	want := []string{"Here's the image you requested:", "[image image/png, 4033 bytes, 20×20 px: saved as mcp/node_3-1.png]", "The image above is the MCP logo."}
	at := 0
	for _, w := range want {
		i := strings.Index(res.Output[at:], w)
		if i < 0 {
			t.Fatalf("output %q lacks %q after byte %d", res.Output, w, at)
		}
		at += i + len(w)
	}
	if len(res.Artifacts) != 1 || res.Artifacts[0].Kind != tool.ArtifactImage || res.Artifacts[0].Mime != "image/png" || res.Artifacts[0].Size != 4033 {
		t.Fatalf("artifacts %+v", res.Artifacts)
	}
	b, err := os.ReadFile(filepath.Join(dir, "mcp", "node_3-1.png"))
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || len(b) != 4033 {
		t.Errorf("the kept picture: %d bytes, %v", len(b), err)
	}
}

func TestNPMEverythingLongRunningCallAndDeadline(t *testing.T) {
	t.Parallel()
	srv := mcptest.NPMServer(t, "@modelcontextprotocol/server-everything", "stdio")
	reg, _, _ := setup(t, map[string]mcp.Server{"every": srv}, nil)
	env := tool.Env{RunID: "run_1"}
	// Within the deadline: 1 s in 4 steps (the server sends progress only
	// when asked with a progress token, which a call outside a run, with
	// no tool.Env.Progress, does not give).
	res := call(t, reg, env, "mcp__every__trigger-long-running-operation", `{"duration": 1, "steps": 4}`)
	if res.IsError || !strings.Contains(res.Output, "Long running operation completed. Duration: 1 seconds, Steps: 4.") {
		t.Errorf("long-running call: %+v", res)
	}
	if err := reg.SetTimeout("mcp__every__trigger-long-running-operation", 800*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res = call(t, reg, env, "mcp__every__trigger-long-running-operation", `{"duration": 30, "steps": 30}`)
	if !res.IsError || res.Code != tool.CodeTimeout {
		t.Errorf("past the deadline: %+v, want %s", res, tool.CodeTimeout)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the deadline of 800ms took %s", d)
	}
	// The session outlives the call cut short: the same server answers.
	res = call(t, reg, env, "mcp__every__echo", `{"message":"still here"}`)
	if res.IsError || res.Output != "Echo: still here" {
		t.Errorf("after the deadline: %+v", res)
	}
}

// A call made in a run asks server-everything for progress, and every
// report of its long-running operation reaches the call, in order.
func TestNPMEverythingSendsProgress(t *testing.T) {
	t.Parallel()
	srv := mcptest.NPMServer(t, "@modelcontextprotocol/server-everything", "stdio")
	reg, _, _ := setup(t, map[string]mcp.Server{"every": srv}, nil)
	everythingProgress(t, reg)
}

// everythingProgress calls server-everything's long-running operation,
// 0.6 s in 3 steps, with a progress callback, and checks it heard steps 1,
// 2 and 3 of 3, and nothing after the call.
func everythingProgress(t *testing.T, reg *tool.Registry) {
	t.Helper()
	l := &progressLog{}
	res := call(t, reg, tool.Env{RunID: "run_1", Progress: l.add}, "mcp__every__trigger-long-running-operation", `{"duration": 0.6, "steps": 3}`)
	l.callReturned()
	if res.IsError || !strings.Contains(res.Output, "Long running operation completed.") {
		t.Fatalf("long-running call: %+v", res)
	}
	time.Sleep(50 * time.Millisecond)
	got, late := l.all()
	want := []tool.Progress{{Progress: 1, Total: 3}, {Progress: 2, Total: 3}, {Progress: 3, Total: 3}}
	if diff := cmp.Diff(want, got); diff != "" || late != 0 {
		t.Errorf("progress (-want +got):\n%s(and %d reports after the call)", diff, late)
	}
}

func TestNPMEverythingOneProcessPerRun(t *testing.T) {
	t.Parallel()
	srv := mcptest.NPMServer(t, "@modelcontextprotocol/server-everything", "stdio")
	reg, _, _ := setup(t, map[string]mcp.Server{"every": srv}, nil)
	// toggle-simulated-logging keeps, in its process, which sessions it
	// logs to: a second toggle in the same run stops it, and the first in
	// another run starts it, in that run's own server.
	toggle := func(run string) string {
		return call(t, reg, tool.Env{RunID: run}, "mcp__every__toggle-simulated-logging", `{}`).Output
	}
	if out := toggle("run_1"); !strings.HasPrefix(out, "Started simulated") {
		t.Fatalf("run 1, first toggle: %q", out)
	}
	if out := toggle("run_2"); !strings.HasPrefix(out, "Started simulated") {
		t.Errorf("run 2, first toggle: %q: the run shares run 1's server", out)
	}
	if out := toggle("run_1"); !strings.HasPrefix(out, "Stopped simulated") {
		t.Errorf("run 1, second toggle: %q: the run's state did not last", out)
	}
}

func TestNPMFilesystemWritesInItsDirectory(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := mcptest.NPMServer(t, "@modelcontextprotocol/server-filesystem", dir)
	reg, _, l := setup(t, map[string]mcp.Server{"fs": srv}, nil)
	if _, ok := reg.Lookup("mcp__fs__write_file"); !ok {
		t.Fatalf("no mcp__fs__write_file (log: %s)", l)
	}
	env := tool.Env{RunID: "run_1"}
	path := filepath.Join(dir, "notes", "hello.txt")
	if res := call(t, reg, env, "mcp__fs__create_directory", mustJSON(t, map[string]string{"path": filepath.Dir(path)})); res.IsError {
		t.Fatalf("create_directory: %s", res.Output)
	}
	res := call(t, reg, env, "mcp__fs__write_file", mustJSON(t, map[string]string{"path": path, "content": "written by an MCP server\n"}))
	if res.IsError || !strings.Contains(res.Output, "Successfully wrote to "+path) {
		t.Fatalf("write_file: %+v", res)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "written by an MCP server\n" {
		t.Errorf("the file on disk: %q, %v", b, err)
	}
	// The server gives the file's text twice, as text and as the
	// structured {"content": text}: the model reads it once.
	res = call(t, reg, env, "mcp__fs__read_text_file", mustJSON(t, map[string]string{"path": path}))
	if res.IsError || res.Output != "written by an MCP server\n" {
		t.Errorf("read_text_file: %+v, want the file's text once", res)
	}
	// A picture comes as image content, and again as its base64 in the
	// structured content: it is kept once, and the model reads no base64.
	png := filepath.Join(dir, "dot.png")
	if err := os.WriteFile(png, mcptest.PNG, 0o600); err != nil {
		t.Fatal(err)
	}
	media := tool.Env{RunID: "run_1", NodeID: "node_9", Artifacts: t.TempDir()}
	res = call(t, reg, media, "mcp__fs__read_media_file", mustJSON(t, map[string]string{"path": png}))
	if res.IsError || len(res.Artifacts) != 1 || res.Output != "[image image/png, "+strconv.Itoa(len(mcptest.PNG))+" bytes, 3×2 px: saved as mcp/node_9-1.png]" {
		t.Errorf("read_media_file: %+v", res)
	}
	// Outside its directory the server refuses: a tool error, and nothing
	// written.
	outside := filepath.Join(t.TempDir(), "escape.txt")
	res = call(t, reg, env, "mcp__fs__write_file", mustJSON(t, map[string]string{"path": outside, "content": "no"}))
	if !res.IsError || res.Code != mcp.CodeToolError || !strings.Contains(res.Output, "outside allowed directories") {
		t.Errorf("write outside: %+v", res)
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Errorf("the server wrote outside its directory: %v", err)
	}
}

func TestNPMMemoryKeepsItsGraphInTheRunAndInItsFile(t *testing.T) {
	t.Parallel()
	srv := mcptest.NPMServer(t, "@modelcontextprotocol/server-memory")
	// Its default file is inside its package: never that.
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	srv.Env = map[string]string{"MEMORY_FILE_PATH": file}
	reg, _, _ := setup(t, map[string]mcp.Server{"memory": srv}, nil)
	run1 := tool.Env{RunID: "run_1"}
	res := call(t, reg, run1, "mcp__memory__create_entities",
		`{"entities": [{"name": "Steward", "entityType": "program", "observations": ["runs agents locally"]}]}`)
	if res.IsError || !strings.Contains(res.Output, `"Steward"`) {
		t.Fatalf("create_entities: %+v", res)
	}
	// Its text is the entities' JSON, its structured content the same
	// under "entities": read once.
	if strings.Count(res.Output, "runs agents locally") != 1 {
		t.Errorf("create_entities: the model reads the entities more than once: %s", res.Output)
	}
	res = call(t, reg, run1, "mcp__memory__read_graph", `{}`)
	if res.IsError || !strings.Contains(res.Output, "runs agents locally") {
		t.Errorf("read_graph in the same run: %+v", res)
	}
	// The server keeps its graph in its file, which every process of it
	// reads: another run, with a server of its own, reads what run 1
	// wrote. Steward isolates runs' processes, not what a server stores.
	res = call(t, reg, tool.Env{RunID: "run_2"}, "mcp__memory__read_graph", `{}`)
	if res.IsError || !strings.Contains(res.Output, "runs agents locally") {
		t.Errorf("read_graph in run 2: %+v", res)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), "Steward") {
		t.Errorf("the memory file: %q, %v", b, err)
	}
}

func TestNPMMemoryAnotherFileIsAnotherGraph(t *testing.T) {
	t.Parallel()
	srv := mcptest.NPMServer(t, "@modelcontextprotocol/server-memory")
	srv.Env = map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}
	reg, _, _ := setup(t, map[string]mcp.Server{"memory": srv}, nil)
	res := call(t, reg, tool.Env{RunID: "run_1"}, "mcp__memory__read_graph", `{}`)
	var graph struct {
		Entities  []json.RawMessage `json:"entities"`
		Relations []json.RawMessage `json:"relations"`
	}
	text, _, _ := strings.Cut(res.Output, "\nstructuredContent: ")
	if err := json.Unmarshal([]byte(text), &graph); err != nil || res.IsError || len(graph.Entities) != 0 || len(graph.Relations) != 0 {
		t.Errorf("a new file's graph: %+v (%v)", res, err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The same server over streamable HTTP (the TypeScript SDK's stateful
// transport, 2025-11-25: the client's server/discover falls back to
// initialize), on loopback.
func TestNPMEverythingOverHTTP(t *testing.T) {
	t.Parallel()
	addr := mcptest.NPMHTTP(t, "@modelcontextprotocol/server-everything", "streamableHttp")
	reg, _, l := setup(t, map[string]mcp.Server{"every": {Type: mcp.TypeHTTP, URL: "http://" + addr + "/mcp"}}, nil)
	specs := reg.Specs(mcp.Pattern("every"))
	if len(specs) == 0 {
		t.Fatalf("no tools (log: %s)", l)
	}
	for _, s := range specs {
		if s.Risk != tool.RiskNetwork {
			t.Errorf("%s of an untrusted HTTP server has risk %s, want %s", s.Name, s.Risk, tool.RiskNetwork)
		}
	}
	env := tool.Env{RunID: "run_1", NodeID: "node_1", Artifacts: t.TempDir()}
	if res := call(t, reg, env, "mcp__every__echo", `{"message":"over HTTP"}`); res.Output != "Echo: over HTTP" {
		t.Errorf("echo: %+v", res)
	}
	if res := call(t, reg, env, "mcp__every__get-tiny-image", `{}`); len(res.Artifacts) != 1 || !strings.Contains(res.Output, "20×20 px: saved as mcp/node_1-1.png") {
		t.Errorf("image: %+v", res)
	}
	// Progress comes on the call's own stream (Steward keeps no standing
	// one open).
	everythingProgress(t, reg)
	if err := reg.SetTimeout("mcp__every__trigger-long-running-operation", 800*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if res := call(t, reg, env, "mcp__every__trigger-long-running-operation", `{"duration": 30, "steps": 30}`); res.Code != tool.CodeTimeout {
		t.Errorf("past the deadline: %+v", res)
	}
	if res := call(t, reg, env, "mcp__every__echo", `{"message":"still here"}`); res.Output != "Echo: still here" {
		t.Errorf("after the deadline: %+v", res)
	}
	// Each run has its own session: the server's per-session state (which
	// sessions it logs to) is the run's.
	toggle := func(run string) string {
		return call(t, reg, tool.Env{RunID: run}, "mcp__every__toggle-simulated-logging", `{}`).Output
	}
	a, b, c := toggle("run_1"), toggle("run_2"), toggle("run_1")
	if !strings.HasPrefix(a, "Started") || !strings.HasPrefix(b, "Started") || !strings.HasPrefix(c, "Stopped") {
		t.Errorf("toggles of runs 1, 2, 1: %q, %q, %q", a, b, c)
	}
}

// The configuration people paste most: npx, which starts a shell that
// starts node. The server works through it with the environment Steward
// gives its programs, and the run's end leaves none of the three running.
func TestNPMThroughNPXLeavesNoProcess(t *testing.T) {
	t.Parallel()
	dir := mcptest.NPMDir(t)
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skipf("no /proc to find the server's processes by: %v", err)
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Fatalf("npx, which comes with node: %v", err)
	}
	// The memory file's path, unique to this test, marks its processes.
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	srv := mcp.Server{Command: npx, Args: []string{"--no-install", "mcp-server-memory"}, Cwd: dir, Env: map[string]string{"MEMORY_FILE_PATH": file}}
	reg, _, l := setup(t, map[string]mcp.Server{"memory": srv}, nil)
	env := tool.Env{RunID: "run_1"}
	if res := call(t, reg, env, "mcp__memory__read_graph", `{}`); res.IsError || !strings.Contains(res.Output, `"entities": []`) {
		t.Fatalf("read_graph through npx: %+v (log: %s)", res, l)
	}
	if procs := processesWith(file); len(procs) == 0 {
		t.Fatal("no process of the server found by its environment: the check below would prove nothing")
	}
	if _, err := reg.EndRun(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for procs := processesWith(file); len(procs) > 0; procs = processesWith(file) {
		if time.Now().After(deadline) {
			t.Fatalf("5 s after the run's end, still running: %q", procs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesWith lists the processes whose environment has s in it, with
// their command lines.
func processesWith(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		c, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if len(c) == 0 { // a zombie: it has exited
			continue
		}
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(c), "\x00", " "))
	}
	return out
}
