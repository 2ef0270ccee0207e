package mcp_test

// The client scenarios of the MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in testdata/mcp-npm), run
// against Steward's client: the suite starts a server of its own for a
// scenario and runs a client command with the server's URL as its last
// argument; this test binary is that command (conformanceClientIfAsked,
// from TestMain), driving the Manager and the registry as Steward does.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/elicit"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// conformanceEnv makes the test binary the suite's client: the suite
// passes its environment on, with MCP_CONFORMANCE_SCENARIO added.
const conformanceEnv = "STEWARD_MCP_CONFORMANCE_CLIENT"

// conformanceCalls are the tools each scenario's server expects the client
// to call, with their arguments: what a model would ask for.
var conformanceCalls = map[string][2]string{
	"tools_call":                          {"add_numbers", `{"a": 5, "b": 3}`},
	"sse-retry":                           {"test_reconnection", `{}`},
	"elicitation-sep1034-client-defaults": {"test_client_elicitation_defaults", `{}`},
}

// conformanceClientIfAsked is the suite's client, when the suite started
// this binary: it lists the server's tools as a run's agent does and calls
// the one the scenario expects (or, when it names none, the first listed),
// then ends the run and exits.
func conformanceClientIfAsked() {
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if os.Getenv(conformanceEnv) == "" || scenario == "" || len(os.Args) < 2 {
		return
	}
	url := os.Args[len(os.Args)-1]
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "steward: "+format+"\n", args...) }
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"cf": {Type: mcp.TypeHTTP, URL: url}}, Logf: logf, Version: "conformance"})
	reg := tool.NewRegistry()
	for _, src := range m.Sources() {
		if err := reg.AddSource(src); err != nil {
			logf("%v", err)
			os.Exit(1)
		}
	}
	reg.AddRunEnder(m)
	// The person accepts every form as it is shown: its defaults.
	env := tool.Env{RunID: "run_conformance", Elicit: func(_ context.Context, q tool.Elicitation) (tool.ElicitAnswer, error) {
		content, err := elicit.Content(q.Schema, nil)
		logf("asked %q: %s, %v", q.Text, content, err)
		return tool.ElicitAnswer{Action: tool.ElicitAccept, Content: content}, err
	}}
	code := 0
	var names []string
	for _, s := range reg.Specs(mcp.Pattern("cf")) {
		names = append(names, s.Name)
	}
	logf("scenario %s: tools %v", scenario, names)
	call, ok := conformanceCalls[scenario]
	if !ok && len(names) > 0 {
		call = [2]string{strings.TrimPrefix(names[0], mcp.Prefix("cf")), `{}`}
	}
	if call[0] != "" {
		res, err := reg.Call(context.Background(), env, mcp.Prefix("cf")+call[0], json.RawMessage(call[1]))
		logf("call %s %s: %+v, %v", call[0], call[1], res, err)
		if err != nil || res.IsError {
			code = 1
		}
	}
	if _, err := reg.EndRun(context.Background(), env); err != nil {
		logf("end run: %v", err)
		code = 1
	}
	os.Exit(code)
}

// conformanceExpected are the client scenarios of the suite 0.1.16 and
// whether Steward's client passes each; a scenario that does better or
// worse than said here fails the test, so that this list stays true.
var conformanceExpected = []struct {
	scenario string
	pass     bool
	why      string // why it fails
}{
	{"initialize", true, ""},
	{"tools_call", true, ""},
	// The scenario's server sends elicitation/create on the standing
	// stream, unrelated to the call: it goes to the call in flight on the
	// session, whose person (here: one who accepts the form as shown)
	// answers, with the defaults filled in.
	{"elicitation-sep1034-client-defaults", true, ""},
	// The SDK's streamable client reconnects as the server's retry says.
	{"sse-retry", true, ""},
	{"auth/metadata-default", false, noOAuth},
	{"auth/metadata-var1", false, noOAuth},
	{"auth/metadata-var2", false, noOAuth},
	{"auth/metadata-var3", false, noOAuth},
	{"auth/basic-cimd", false, noOAuth},
	{"auth/scope-from-www-authenticate", false, noOAuth},
	{"auth/scope-from-scopes-supported", false, noOAuth},
	{"auth/scope-omitted-when-undefined", false, noOAuth},
	{"auth/scope-step-up", false, noOAuth},
	{"auth/scope-retry-limit", false, noOAuth},
	{"auth/token-endpoint-auth-basic", false, noOAuth},
	{"auth/token-endpoint-auth-post", false, noOAuth},
	{"auth/token-endpoint-auth-none", false, noOAuth},
	{"auth/pre-registration", false, noOAuth},
	{"auth/2025-03-26-oauth-metadata-backcompat", false, noOAuth},
	{"auth/2025-03-26-oauth-endpoint-fallback", false, noOAuth},
	// Passed without trying: the client must not authorize against a
	// mismatched resource, and Steward authorizes against none.
	{"auth/resource-mismatch", true, ""},
	{"auth/offline-access-scope", false, noOAuth},
	{"auth/offline-access-not-supported", false, noOAuth},
	{"auth/client-credentials-jwt", false, noOAuth},
	{"auth/client-credentials-basic", false, noOAuth},
	{"auth/cross-app-access-complete-flow", false, noOAuth},
}

// noOAuth is why the auth scenarios fail: Steward reaches an HTTP server
// with a bearer token from the environment (bearer_token_env) or headers
// only, and does no OAuth (no discovery, registration or token request).
const noOAuth = "Steward's client does no OAuth"

func TestConformanceClientScenarios(t *testing.T) {
	t.Parallel()
	dir := mcptest.NPMDir(t)
	node := mcptest.Node22(t, dir)
	suite := mcptest.ConformanceSuite(dir)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(self, " \t'\"$") {
		t.Skipf("the suite splits its client command at spaces and runs it in a shell: the test binary's path %q cannot be given", self)
	}
	for _, c := range conformanceExpected {
		t.Run(strings.ReplaceAll(c.scenario, "/", "_"), func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			// loopback.mjs keeps the scenario's server on 127.0.0.1 (it
			// listens on every interface).
			cmd := exec.CommandContext(ctx, node, "--import", filepath.Join(dir, "loopback.mjs"), suite,
				"client", "--command", self, "--scenario", c.scenario, "-o", out, "--timeout", "30000")
			cmd.Dir = out
			cmd.Env = append(os.Environ(), conformanceEnv+"=1")
			log, runErr := cmd.CombinedOutput()
			checks := readChecks(t, out)
			var failed []string
			for _, ch := range checks {
				if ch.Status == "FAILURE" {
					failed = append(failed, ch.ID+": "+ch.ErrorMessage)
				}
			}
			passed := runErr == nil && len(failed) == 0 && len(checks) > 0
			t.Logf("scenario %s: passed %v, %d checks, failed %q (suite: %v)", c.scenario, passed, len(checks), failed, runErr)
			if passed != c.pass {
				t.Errorf("scenario %s passed %v, want %v (%s); the suite said:\n%s", c.scenario, passed, c.pass, c.why, log)
			}
		})
	}
}

// check is one of a scenario's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// readChecks reads the one checks.json the suite wrote under dir.
func readChecks(t *testing.T, dir string) []check {
	t.Helper()
	// A scenario named auth/x is written under auth/.
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "checks.json" {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) != 1 {
		t.Fatalf("checks.json under %s: %v, %v", dir, files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var out []check
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", files[0], err)
	}
	return out
}
