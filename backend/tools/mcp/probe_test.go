package mcp_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

func TestServersDescribeWithoutSecrets(t *testing.T) {
	t.Parallel()
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{
		"fx": mcptest.Stdio(map[string]string{"API_TOKEN": "tok-secret-1"}),
		"web": {Type: mcp.TypeHTTP, URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "Bearer tok-secret-2"},
			BearerTokenEnv: "WEB_TOKEN", Trusted: true},
	}})
	got := m.Servers()
	if len(got) != 2 || got[0].Name != "fx" || got[1].Name != "web" {
		t.Fatalf("servers %+v", got)
	}
	if got[0].Prefix != mcp.Prefix("fx") || got[0].Type != mcp.TypeStdio || got[0].Protocol != mcp.ProtocolAuto || !slices.Contains(got[0].Env, "API_TOKEN") {
		t.Errorf("fx: %+v", got[0])
	}
	if got[1].Type != mcp.TypeHTTP || !got[1].Trusted || !slices.Equal(got[1].Headers, []string{"Authorization"}) || got[1].BearerTokenEnv != "WEB_TOKEN" {
		t.Errorf("web: %+v", got[1])
	}
	if s := strings.Join([]string{got[0].Command, strings.Join(got[0].Args, " "), got[1].URL}, " "); strings.Contains(s, "tok-secret") {
		t.Errorf("a secret in the view: %s", s)
	}
}

func TestTestListsToolsWithAnnotationsAndRisks(t *testing.T) {
	t.Parallel()
	trusted := mcptest.Stdio(nil)
	trusted.Trusted = true
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": mcptest.Stdio(nil), "tr": trusted}})
	res, err := m.Test(context.Background(), "fx")
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Error != "" || res.Era == "" {
		t.Fatalf("test of fx: %+v", res)
	}
	if res.Millis <= 0 { // a process started and a handshake: milliseconds, never none
		t.Errorf("the test took %d ms, as the screen says", res.Millis)
	}
	byRemote := map[string]mcp.ToolView{}
	for _, v := range res.Tools {
		byRemote[v.Remote] = v
	}
	echo := byRemote["echo"]
	if echo.Name != "mcp__fx__echo" || echo.Annotations == nil || !echo.Annotations.ReadOnlyHint || echo.Risk != "exec" {
		t.Errorf("echo of an untrusted server: %+v", echo)
	}
	if bad := byRemote["bad_schema"]; !strings.Contains(bad.Problem, "input schema is not valid") {
		t.Errorf("bad_schema is not said to be left out: %+v", bad)
	}
	if mc := byRemote["mixed.content"]; mc.Name != "mcp__fx__mixed_content" || mc.Problem != "" {
		t.Errorf("mixed.content: %+v", mc)
	}
	res, err = m.Test(context.Background(), "tr")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Tools {
		if v.Remote == "echo" && v.Risk != "read" {
			t.Errorf("echo of a trusted server has risk %s, want read", v.Risk)
		}
	}
	if n := m.Servers()[0].Sessions; n != 0 {
		t.Errorf("%d sessions left open by Test", n)
	}
}

func TestTestOfABrokenServerSaysWhyWithItsStderr(t *testing.T) {
	t.Parallel()
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"junk": mcptest.Stdio(mcptest.Garbage)}})
	res, err := m.Test(context.Background(), "junk")
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !strings.Contains(res.Error, "MCP server junk could not be started") || !strings.Contains(res.Error, "fixture: printed garbage") {
		t.Errorf("test of a server printing garbage: %+v", res)
	}
	if _, err := m.Test(context.Background(), "nope"); !errors.Is(err, mcp.ErrUnknownServer) {
		t.Errorf("unknown server: %v", err)
	}
}
