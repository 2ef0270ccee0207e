package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A demo run recorded with `steward export` replays with `steward replay`:
// exit 0 with recorded or live tools, 3 with the step and field when the
// workspace makes a tool answer otherwise.
func TestCLIReplay(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"HOME=" + home, "STEWARD_HOME=" + home} // one database for every command below
	ws := t.TempDir()
	out, code := stewardCmd(t, "y\n", env, "run", "--workspace", ws, "write the demo note")
	id := regexp.MustCompile(`run (run_[a-z0-9]+)`).FindStringSubmatch(out)
	if code != 0 || id == nil {
		t.Fatalf("run: exit %d:\n%s", code, out)
	}
	file := filepath.Join(t.TempDir(), "demo.steward")
	if out, code := stewardCmd(t, "", env, "export", "-o", file, id[1]); code != 0 {
		t.Fatalf("export: exit %d:\n%s", code, out)
	}
	for _, tools := range []string{"recorded", "live"} {
		out, code := stewardCmd(t, "", env, "replay", "--tools", tools, file)
		if code != 0 || !strings.Contains(out, "replaying run "+id[1]) || !strings.Contains(out, "no divergence") {
			t.Errorf("replay --tools %s: exit %d:\n%s", tools, code, out)
		}
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "extra.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = stewardCmd(t, "", env, "replay", "--workspace", other, file)
	if code != 3 || !strings.Contains(out, "diverged at model call 2: messages[2].content (tool result of call_1_0)") {
		t.Errorf("replay in a changed workspace: exit %d, want 3:\n%s", code, out)
	}
}
