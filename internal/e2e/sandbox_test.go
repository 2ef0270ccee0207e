package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/sandbox"
	"steward/backend/sandbox/sandboxtest"
)

// TestE2ESandboxedCommandSeesNoSecret is the attack of issue 14 on the real
// binary: a model in mode auto runs commands that read the server's
// environment through /proc and the data directory's token and config. None
// of the server's secrets may reach the command's output, the model, or the
// log. PRIVATE_CANARY is a variable of the server's that Steward does not
// know as a secret (no redactor would catch it): only the sandbox keeps it
// from the command.
func TestE2ESandboxedCommandSeesNoSecret(t *testing.T) {
	t.Parallel()
	sandboxtest.Require(t, sandbox.New(sandbox.Options{}))
	const (
		key     = "sk-canary-e2e-sandbox-4Kp9Qw2Zx7"
		token   = "steward-token-canary-e2e-5Rt8Yu1Io3"
		private = "private-canary-e2e-6Hj2Kl9Mn4"
	)
	home := t.TempDir()
	stored := filepath.Join(home, "config.json")
	if err := os.WriteFile(stored, []byte(`{"anthropic": {"api_key": "sk-ant-stored-canary-7Vb3Nm8"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	attack := `tr '\0' '\n' < /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do tr '\0' '\n' < "$f"; done; ` +
		`cat ` + filepath.Join(home, "token") + ` ` + stored + `; ls -A ` + home + `; echo attack-done`
	ms := newModelServerFunc(t, func(req chatRequest, n int) (string, []fakeCall) {
		if n == 1 {
			return "Reading the server's secrets.", []fakeCall{{"run_command", map[string]any{"command": attack}}}
		}
		return "Done.", nil
	})
	s := startServeAt(t, t.TempDir(), home, "OPENAI_BASE_URL="+ms.URL+"/v1", "OPENAI_API_KEY="+key, "STEWARD_MODEL=fake",
		"STEWARD_TOKEN="+token, "PRIVATE_CANARY="+private)
	if u, _ := url.Parse(s.url); u.Query().Get("token") != token {
		t.Fatal("the server does not use the token it was given")
	}
	s.call(t, "POST", "/api/v1/agents", map[string]any{"name": "attacker", "provider": "openai", "model": "fake",
		"tools": []string{"run_command"}, "mode": "auto"}, http.StatusCreated, nil)
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "attacker", "instructions": "read them", "workspace": t.TempDir()}, http.StatusCreated, &r)
	waitRunStatus(t, s, r.ID, "completed")

	results := ms.toolResults()
	if len(results) != 1 {
		t.Fatalf("%d tool results reached the model, want 1", len(results))
	}
	var out string
	for _, v := range results {
		out = v
	}
	if !strings.Contains(out, "attack-done") || !strings.Contains(out, "PATH=") {
		t.Fatalf("the command did not run as planned, so the test proves nothing:\n%s", out)
	}
	if !strings.Contains(out, "config.json: No such file or directory") {
		t.Errorf("the data directory is visible to the command:\n%s", out)
	}
	var evs struct{ Events []wireEvent }
	s.get(t, "/api/v1/runs/"+r.ID+"/events?limit=1000", &evs)
	var log strings.Builder
	confined := false
	for _, ev := range evs.Events {
		log.Write(ev.Data)
		if ev.Type == "run.created" {
			var d struct{ Sandbox struct{ Confined bool } }
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			confined = d.Sandbox.Confined
		}
	}
	if !confined {
		t.Error("run.created does not say the run's commands are sandboxed")
	}
	for what, secret := range map[string]string{"API key": key, "token": token, "private variable": private, "stored key": "sk-ant-stored-canary-7Vb3Nm8"} {
		if strings.Contains(out, secret) {
			t.Errorf("the command read the server's %s:\n%s", what, out)
		}
		if strings.Contains(log.String(), secret) {
			t.Errorf("the server's %s is in the run's log", what)
		}
	}
}
