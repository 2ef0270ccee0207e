package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"steward/backend/tools/mcp/mcptest"
)

// TestE2EMCPConformanceServerScenarios runs the server scenarios of the
// MCP conformance suite (@modelcontextprotocol/conformance, pinned in
// testdata/mcp-npm) against /mcp of a running `steward serve`, and holds
// each scenario's result to the table in docs/mcp-server.md: every
// scenario that applies to a server like Steward's passes, and every one
// that does not (it calls a test tool, prompt or resource that Steward does
// not offer) says why there.
func TestE2EMCPConformanceServerScenarios(t *testing.T) {
	t.Parallel()
	dir := mcptest.NPMDir(t)
	node := mcptest.Node22(t, dir)
	want := conformanceTable(t)
	s := startServe(t, t.TempDir())
	_, token, _ := strings.Cut(s.url, "?token=")
	url := s.base + "/mcp"

	// The suite's client sends no header of its own; bearer.mjs adds the
	// token to each of its requests, as a client configured with it does.
	out := t.TempDir()
	log, err := runConformance(t, node, dir, out, token, "--url", url, "--suite", "all")
	got := serverResults(t, out)
	t.Logf("the suite (exit %v) ran %d scenarios against %s", err, len(got), url)
	for _, name := range slices.Sorted(maps.Keys(got)) {
		r := got[name]
		t.Logf("%-32s passed %-5v %s", name, r.passed, strings.Join(r.failed, "; "))
		w, ok := want[name]
		switch {
		case !ok:
			t.Errorf("scenario %s (passed %v) is not in docs/mcp-server.md's conformance table", name, r.passed)
		case r.passed != w.passes:
			t.Errorf("scenario %s passed %v; docs/mcp-server.md says %q (%s); failed checks: %q", name, r.passed, w.result, w.why, r.failed)
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("scenario %s of docs/mcp-server.md's table did not run", name)
		}
	}
	if t.Failed() {
		t.Logf("the suite said:\n%s\nsteward serve said:\n%s", log, s.logs)
	}

	// Without the token the same suite is refused: what it reached above,
	// it reached through the API's authentication.
	t.Run("without the token", func(t *testing.T) {
		out := t.TempDir()
		log, _ := runConformance(t, node, dir, out, "", "--url", url, "--scenario", "server-initialize")
		r, ok := serverResults(t, out)["server-initialize"]
		if !ok || r.passed || !strings.Contains(strings.Join(r.failed, " "), `"code":"unauthorized"`) {
			t.Errorf("server-initialize without the token: %+v, want the API's unauthorized; the suite said:\n%s", r, log)
		}
	})
}

// runConformance runs the suite's server mode with args, writing its
// results under out; with a token, bearer.mjs sends it on every request.
func runConformance(t *testing.T, node, dir, out, token string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var argv []string
	env := os.Environ()
	if token != "" {
		argv = append(argv, "--import", filepath.Join(dir, "bearer.mjs"))
		env = append(env, "STEWARD_MCP_BEARER="+token)
	}
	argv = append(argv, mcptest.ConformanceSuite(dir), "server", "-o", out)
	cmd := exec.CommandContext(ctx, node, append(argv, args...)...)
	cmd.Dir = out
	cmd.Env = env
	// The suite exits 1 when a scenario fails, as some that do not apply
	// do: what counts is each scenario's checks.
	return cmd.CombinedOutput()
}

// serverResult is what one scenario's checks came to.
type serverResult struct {
	passed bool     // no check failed (a warning is no failure, as the suite counts it)
	failed []string // the failed checks: id: message
}

// resultDir is a scenario's folder of results: server-NAME-TIMESTAMP.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// serverResults reads the scenarios' checks.json under out.
func serverResults(t *testing.T, out string) map[string]serverResult {
	t.Helper()
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]serverResult{}
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, e.Name(), "checks.json"))
		if err != nil {
			t.Fatalf("scenario %s: %v", m[1], err)
		}
		var checks []struct {
			ID           string `json:"id"`
			Status       string `json:"status"`
			ErrorMessage string `json:"errorMessage"`
		}
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Fatalf("scenario %s: checks.json: %v", m[1], err)
		}
		r := serverResult{passed: len(checks) > 0}
		for _, c := range checks {
			if c.Status == "FAILURE" {
				r.passed = false
				r.failed = append(r.failed, c.ID+": "+c.ErrorMessage)
			}
		}
		res[m[1]] = r
	}
	return res
}

// tableRow is a scenario's row of docs/mcp-server.md's conformance table.
type tableRow struct {
	result string // "passes" or "does not apply"
	passes bool
	why    string
}

// tableLine is a row: | `scenario` | result | why |.
var tableLine = regexp.MustCompile("^\\| `([a-z0-9-]+)` \\| (passes|does not apply) \\|(.*)\\|$")

// conformanceTable reads the table under "## Conformance" in
// docs/mcp-server.md: the one place that says which scenarios pass.
func conformanceTable(t *testing.T) map[string]tableRow {
	t.Helper()
	f, err := os.Open(filepath.Join(moduleRoot, "docs", "mcp-server.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]tableRow{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Conformance"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		m := tableLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("docs/mcp-server.md: a row of the conformance table is not | `scenario` | passes or does not apply | why |: %q", line)
		}
		if m[2] != "passes" && strings.TrimSpace(m[3]) == "" {
			t.Errorf("docs/mcp-server.md: scenario %s does not apply, and the table does not say why", m[1])
		}
		rows[m[1]] = tableRow{result: m[2], passes: m[2] == "passes", why: strings.TrimSpace(m[3])}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("docs/mcp-server.md has no conformance table under ## Conformance")
	}
	return rows
}
