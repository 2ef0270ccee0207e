package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"steward/backend/sandbox"
	"steward/backend/sandbox/sandboxtest"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// pidIn is the process id of the server that answers fx's pid in env.
func pidIn(t *testing.T, reg *tool.Registry, env tool.Env) int {
	t.Helper()
	res, err := reg.Call(context.Background(), env, "mcp__fx__pid", json.RawMessage(`{}`))
	if err != nil || res.IsError {
		t.Fatalf("pid in %s: %+v, %v", env.RunID, res, err)
	}
	n, err := strconv.Atoi(res.Output)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// A shared server is one process for every run: a run's end leaves it, a
// change of its entry stops it (the next call starts it as now
// configured), and the Manager's close stops it.
func TestSharedServerServesEveryRun(t *testing.T) {
	t.Parallel()
	fx := mcptest.Stdio(nil)
	fx.Shared = true
	reg, m, _ := setup(t, map[string]mcp.Server{"fx": fx}, nil)
	t.Cleanup(func() { _ = m.Close() })
	p1 := pidIn(t, reg, tool.Env{RunID: "run_1"})
	if p2 := pidIn(t, reg, tool.Env{RunID: "run_2"}); p2 != p1 {
		t.Fatalf("run_1 has %d, run_2 %d: want one process for both", p1, p2)
	}
	if v := m.Servers(); len(v) != 1 || !v[0].Shared || v[0].Sessions != 1 {
		t.Errorf("view %+v: want shared, one session", v)
	}
	if _, err := reg.EndRun(context.Background(), tool.Env{RunID: "run_1"}); err != nil {
		t.Fatal(err)
	}
	if gone(p1) || pidIn(t, reg, tool.Env{RunID: "run_2"}) != p1 {
		t.Fatalf("the shared server ended with run_1")
	}
	changed := fx
	changed.Env = maps.Clone(fx.Env)
	changed.Env["CHANGED"] = "1"
	if err := m.SetServers(map[string]mcp.Server{"fx": changed}); err != nil {
		t.Fatal(err)
	}
	if !gone(p1) {
		t.Errorf("the shared server %d was kept after its entry changed", p1)
	}
	p3 := pidIn(t, reg, tool.Env{RunID: "run_2"})
	if p3 == p1 {
		t.Fatal("the old process answered")
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if !gone(p3) {
		t.Errorf("the shared server %d outlived the Manager's close", p3)
	}
}

// A shared stdio server is no run's: in the sandbox it writes its own
// folder, not the workspace of the run that started it; a run whose
// sandbox confines commands cannot use one a run without it started.
func TestSharedServerIsConfinedInAFolderOfItsOwn(t *testing.T) {
	t.Parallel()
	sb := sandbox.New(sandbox.Options{})
	sandboxtest.Require(t, sb)
	shared := outsideTmp(t)
	fx := mcptest.Stdio(nil)
	fx.Shared = true
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": fx}, Version: "test", Sandbox: sb, SharedDir: shared, Logf: t.Logf})
	t.Cleanup(func() { _ = m.Close() })
	reg := tool.NewRegistry()
	for _, src := range m.Sources() {
		if err := reg.AddSource(src); err != nil {
			t.Fatal(err)
		}
	}
	reg.AddRunEnder(m)
	ws := t.TempDir()
	env := tool.Env{RunID: "run_1", Workspace: ws, Sandbox: sandbox.Settings{Mode: sandbox.ModeAuto}}
	probe := func(env tool.Env, a mcptest.ProbeArgs) string {
		t.Helper()
		args, _ := json.Marshal(a)
		res, err := reg.Call(context.Background(), env, "mcp__fx__probe", args)
		if err != nil {
			t.Fatal(err)
		}
		return res.Output
	}
	own := filepath.Join(shared, "fx", "state.txt")
	if out := probe(env, mcptest.ProbeArgs{Write: own}); out != "write ok" {
		t.Errorf("the shared server's own folder: %q", out)
	}
	if _, err := os.Stat(own); err != nil {
		t.Errorf("its write is not in its folder: %v", err)
	}
	if out := probe(env, mcptest.ProbeArgs{Write: filepath.Join(ws, "x.txt")}); !strings.HasPrefix(out, "write:") {
		t.Errorf("the shared server wrote the workspace of the run that started it: %q", out)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	// Started by a run whose sandbox is off, it runs unconfined: a run
	// whose sandbox confines commands is refused it.
	off := tool.Env{RunID: "run_off", Workspace: ws, Sandbox: sandbox.Settings{Mode: sandbox.ModeOff}}
	if out := probe(off, mcptest.ProbeArgs{Write: filepath.Join(ws, "off.txt")}); out != "write ok" {
		t.Fatalf("mode off: %q", out)
	}
	res, err := reg.Call(context.Background(), env, "mcp__fx__pid", json.RawMessage(`{}`))
	if err != nil || !res.IsError || !strings.Contains(res.Output, "is shared, and runs outside the sandbox") {
		t.Errorf("a confined run and an unconfined shared server: %+v, %v", res, err)
	}
}
