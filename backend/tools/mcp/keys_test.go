package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"steward/backend/policy"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// A key argument the person declares for a server's tool is what rules
// match and grants hold for: a rule on mcp__fx__* with match "myorg/*"
// allows echo of myorg's texts only, whatever else the arguments say. A
// tool without a declared key leaves the arguments to decide.
func TestDeclaredKeyArgumentIsWhatRulesMatch(t *testing.T) {
	t.Parallel()
	fx := mcptest.Stdio(nil)
	fx.Keys = map[string]string{"echo": "text"}
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": fx}, nil)
	rules := []policy.Rule{{Effect: policy.Allow, Tool: "mcp__fx__*", Match: "myorg/*"}}
	for _, c := range []struct {
		args string
		key  string
		want policy.Effect
	}{
		{`{"text": "myorg/steward"}`, "myorg/steward", policy.Allow},
		{`{"text": "other/steward", "note": "myorg/x"}`, "other/steward", policy.Ask},
	} {
		key, ok := reg.Key("mcp__fx__echo", tool.Env{}, json.RawMessage(c.args))
		if !ok || key != c.key {
			t.Errorf("key of %s: %q, %v; want %q", c.args, key, ok, c.key)
		}
		spec, _ := reg.Lookup("mcp__fx__echo")
		d := policy.Decide(policy.Input{Mode: policy.ModeAsk, Tool: "mcp__fx__echo", Risk: spec.Risk, Args: json.RawMessage(c.args), Key: &key, Rules: rules})
		if d.Effect != c.want {
			t.Errorf("%s: %s (%s), want %s", c.args, d.Effect, d.Reason, c.want)
		}
	}
	if _, ok := reg.Key("mcp__fx__pid", tool.Env{}, json.RawMessage(`{}`)); ok {
		t.Error("a tool without a declared key has one")
	}

	if _, err := mcp.ParseServers(json.RawMessage(`{"fx": {"command": "x", "keys": {"echo": ""}}}`)); err == nil || !strings.Contains(err.Error(), "mcpServers.fx: keys") {
		t.Errorf("an empty key argument: %v", err)
	}
	ws := t.TempDir()
	writeProject(t, ws, `{"mcpServers": {"db": {"command": "db-mcp", "keys": {"*": "table"}}}}`)
	if _, _, err := mcp.ReadProject(ws, nil); err == nil || !strings.Contains(err.Error(), "keys decide what your rules match") {
		t.Errorf("keys in a project's file: %v", err)
	}
}
