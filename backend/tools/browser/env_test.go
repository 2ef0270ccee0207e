package browser

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestChromiumEnvironmentHoldsNoSecret: Chromium and every process it
// starts (zygote, renderers, GPU) begin with the allowlisted environment:
// no provider key and no server token, whatever the server's holds.
func TestChromiumEnvironmentHoldsNoSecret(t *testing.T) {
	// t.Setenv: not parallel.
	secrets := map[string]string{
		"OPENAI_API_KEY":        "sk-browser-canary-1a2b3c",
		"ANTHROPIC_API_KEY":     "sk-ant-browser-canary-4d5e6f",
		"STEWARD_TOKEN":         "steward-token-browser-canary-7g8h",
		"AWS_SECRET_ACCESS_KEY": "aws-browser-canary-9i0j",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	f := newFixture(t, Options{})
	f.ok(Open, map[string]any{"url": f.srv.url("/form")})
	pids := chromiumProcs()
	if len(pids) < 2 {
		t.Fatalf("%d Chromium processes, want the browser and its children", len(pids))
	}
	browsers := 0
	for _, pid := range pids {
		env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
		if err != nil {
			continue // it ended meanwhile
		}
		// Chromium's children write their titles over their environment;
		// the browser process's is as it started.
		if cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline")); !bytes.Contains(cmd, []byte("--type=")) {
			browsers++
			if !bytes.Contains(env, []byte("PATH=")) {
				t.Errorf("the browser (process %d) has no PATH: the test reads the wrong thing", pid)
			}
		}
		for k, v := range secrets {
			if bytes.Contains(env, []byte(v)) || bytes.Contains(env, []byte(k+"=")) {
				t.Errorf("Chromium process %d has %s in its environment", pid, k)
			}
		}
	}
	if browsers != 1 {
		t.Errorf("%d browser processes, want 1", browsers)
	}
}
