package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/sandbox"
	"steward/backend/sandbox/sandboxtest"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// outsideTmp makes a folder outside /tmp (which the sandbox replaces by a
// private one), where the sandbox's read-only root and hidden paths show.
func outsideTmp(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(wd, ".confine-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestStdioServerRunsInTheRunsSandbox: a stdio server started for a run
// whose sandbox confines its commands runs in bubblewrap as they do: it
// writes the workspace but nothing else, does not see what is hidden, has
// no network unless its sandbox_network is on, and nothing of it outlives
// the run. Its program lives in /tmp (the test binary), which it still
// finds. Mode off runs it as configured; mode on where the sandbox cannot
// work refuses to start it.
func TestStdioServerRunsInTheRunsSandbox(t *testing.T) {
	t.Parallel()
	out := outsideTmp(t)
	secret := filepath.Join(out, "data")
	if err := os.MkdirAll(secret, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "token"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb := sandbox.New(sandbox.Options{Hide: []string{secret}})
	sandboxtest.Require(t, sb)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	mark := fmt.Sprintf("confine-%d", time.Now().UnixNano())
	fx := mcptest.Stdio(map[string]string{"CONFINE_MARK": mark})
	withNet := fx
	withNet.SandboxNetwork = event.NetworkOn
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": fx, "net": withNet}, Version: "test", Sandbox: sb, Logf: t.Logf})
	reg := tool.NewRegistry()
	for _, src := range m.Sources() {
		if err := reg.AddSource(src); err != nil {
			t.Fatal(err)
		}
	}
	reg.AddRunEnder(m)
	if spec, ok := reg.Lookup("mcp__fx__probe"); !ok || !spec.Sandboxed {
		t.Errorf("a stdio server's tool is not marked sandboxed: where the sandbox cannot work, its calls would not ask: %+v", spec)
	}
	ws := t.TempDir()
	env := tool.Env{RunID: "run_box", Workspace: ws, Sandbox: sandbox.Settings{Mode: sandbox.ModeAuto}}
	call := func(env tool.Env, name string, a mcptest.ProbeArgs) tool.Result {
		t.Helper()
		args, _ := json.Marshal(a)
		res, err := reg.Call(context.Background(), env, name, args)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	res := call(env, "mcp__fx__probe", mcptest.ProbeArgs{
		Write: filepath.Join(ws, "made.txt"), Read: filepath.Join(secret, "token"), Dial: ln.Addr().String()})
	lines := strings.Split(res.Output, "\n")
	if res.IsError || len(lines) != 3 {
		t.Fatalf("probe: %+v", res)
	}
	if lines[0] == "read ok: s3cret" || !strings.HasPrefix(lines[0], "read:") {
		t.Errorf("a hidden file was read: %q", lines[0])
	}
	if lines[1] != "write ok" {
		t.Errorf("the workspace is not writable: %q", lines[1])
	}
	if b, err := os.ReadFile(filepath.Join(ws, "made.txt")); err != nil || string(b) != "from the server\n" {
		t.Errorf("the server's write in the workspace: %q, %v", b, err)
	}
	if !strings.HasPrefix(lines[2], "dial:") {
		t.Errorf("the server reached the host's loopback without the network: %q", lines[2])
	}
	if res := call(env, "mcp__fx__probe", mcptest.ProbeArgs{Write: filepath.Join(out, "escaped.txt")}); !strings.HasPrefix(res.Output, "write:") {
		t.Errorf("a write outside the workspace: %q", res.Output)
	}
	if _, err := os.Stat(filepath.Join(out, "escaped.txt")); err == nil {
		t.Error("the server wrote outside the workspace")
	}
	if res := call(env, "mcp__net__probe", mcptest.ProbeArgs{Dial: ln.Addr().String()}); res.Output != "dial ok" {
		t.Errorf("sandbox_network on: %q", res.Output)
	}
	if !running(mark) {
		t.Fatal("no process of the server carries its mark: the check below would prove nothing")
	}
	// The server hangs: it reads its input no more, and its stop signals
	// bwrap alone. Nothing in the sandbox may outlive bwrap.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if res, _ := reg.Call(ctx, env, "mcp__fx__freeze", json.RawMessage(`{}`)); !res.IsError {
		t.Fatalf("freeze answered: %+v", res)
	}
	if _, err := reg.EndRun(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for running(mark) {
		if time.Now().After(deadline) {
			t.Fatal("a process of the sandboxed server outlived the run's end")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Mode off: as configured, the machine's file system.
	off := tool.Env{RunID: "run_off", Workspace: ws, Sandbox: sandbox.Settings{Mode: sandbox.ModeOff}}
	if res := call(off, "mcp__fx__probe", mcptest.ProbeArgs{Read: filepath.Join(secret, "token")}); res.Output != "read ok: s3cret" {
		t.Errorf("mode off: %q", res.Output)
	}
	if _, err := reg.EndRun(context.Background(), off); err != nil {
		t.Fatal(err)
	}

	// Mode on where the sandbox cannot work: not started.
	broken := sandbox.New(sandbox.Options{Bwrap: filepath.Join(out, "no-bwrap")})
	m2 := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": fx}, Version: "test", Sandbox: broken})
	reg2 := tool.NewRegistry()
	for _, src := range m2.Sources() {
		if err := reg2.AddSource(src); err != nil {
			t.Fatal(err)
		}
	}
	reg2.AddRunEnder(m2)
	on := tool.Env{RunID: "run_on", Workspace: ws, Sandbox: sandbox.Settings{Mode: sandbox.ModeOn}}
	res, err = reg2.Call(context.Background(), on, "mcp__fx__pid", json.RawMessage(`{}`))
	if err != nil || !res.IsError || !strings.Contains(res.Output, "MCP server fx was not started: the sandbox is on for this agent, and it cannot work on this machine") {
		t.Errorf("mode on without a sandbox: %+v, %v", res, err)
	}
	if _, err := reg2.EndRun(context.Background(), on); err != nil {
		t.Fatal(err)
	}
}

// running reports whether a process of this machine has mark in its
// environment.
func running(mark string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte("CONFINE_MARK="+mark)) {
			return true
		}
	}
	return false
}

// TestNPMFilesystemInTheSandbox: the real filesystem server, a node
// program from testdata/mcp-npm (under /tmp in a CI clone), runs in the
// run's sandbox: it writes the workspace it is given, and a folder outside
// it that it is also given is read-only there.
func TestNPMFilesystemInTheSandbox(t *testing.T) {
	t.Parallel()
	sb := sandbox.New(sandbox.Options{})
	sandboxtest.Require(t, sb)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other := outsideTmp(t)
	srv := mcptest.NPMServer(t, "@modelcontextprotocol/server-filesystem", ws, other)
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fs": srv}, Version: "test", Sandbox: sb, Logf: t.Logf})
	reg := tool.NewRegistry()
	for _, src := range m.Sources() {
		if err := reg.AddSource(src); err != nil {
			t.Fatal(err)
		}
	}
	reg.AddRunEnder(m)
	env := tool.Env{RunID: "run_npm", Workspace: ws, Sandbox: sandbox.Settings{Mode: sandbox.ModeAuto}}
	t.Cleanup(func() { _, _ = reg.EndRun(context.Background(), env) })
	in := filepath.Join(ws, "in.txt")
	res := call(t, reg, env, "mcp__fs__write_file", mustJSON(t, map[string]string{"path": in, "content": "confined\n"}))
	if res.IsError {
		t.Fatalf("write_file in the workspace: %+v", res)
	}
	if b, err := os.ReadFile(in); err != nil || string(b) != "confined\n" {
		t.Errorf("the workspace file: %q, %v", b, err)
	}
	out := filepath.Join(other, "out.txt")
	res = call(t, reg, env, "mcp__fs__write_file", mustJSON(t, map[string]string{"path": out, "content": "escaped\n"}))
	if !res.IsError {
		t.Errorf("write_file outside the workspace, in a folder the server was given: %+v", res)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the sandboxed server wrote outside the workspace: %v", err)
	}
}
