package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A demo run recorded with `steward export` replays with `steward replay`:
// exit 0 with recorded or live tools (whose calls are asked on the
// terminal), 3 with the step and field when the workspace makes a tool
// answer otherwise. A folder that holds files is refused unless allowed.
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
	out, code = stewardCmd(t, "", env, "replay", file) // the recorded results, by default
	if code != 0 || !strings.Contains(out, "replaying run "+id[1]) || !strings.Contains(out, "of agent default (mode ask)") ||
		!strings.Contains(out, "tools recorded") || !strings.Contains(out, "no divergence") {
		t.Errorf("replay: exit %d:\n%s", code, out)
	}
	out, code = stewardCmd(t, "y\n", env, "replay", "--tools", "live", file)
	if code != 0 || !strings.Contains(out, "approve? write_file") || !strings.Contains(out, "no divergence") {
		t.Errorf("replay --tools live, approved on the terminal: exit %d:\n%s", code, out)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "extra.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = stewardCmd(t, "y\n", env, "replay", "--tools", "live", "--workspace", other, file)
	if code != 1 || !strings.Contains(out, "is not empty (it holds extra.txt)") {
		t.Errorf("replay into a folder that holds a file: exit %d, want 1:\n%s", code, out)
	}
	out, code = stewardCmd(t, "y\n", env, "replay", "--tools", "live", "--workspace", other, "--allow-nonempty", file)
	if code != 3 || !strings.Contains(out, "diverged at model call 2: messages[2].content (tool result of call_1_0)") {
		t.Errorf("replay in a changed workspace: exit %d, want 3:\n%s", code, out)
	}
	if out, code := stewardCmd(t, "", env, "replay", "--agent", "nobody", file); code != 1 || !strings.Contains(out, `agent "nobody" does not exist`) {
		t.Errorf("replay with an unknown agent: exit %d, want 1:\n%s", code, out)
	}
}
