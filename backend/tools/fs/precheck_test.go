package fs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"steward/backend/tools/fs"
)

// A write tool's precheck says what the call would refuse, as the call
// would say it, and changes nothing; a call that would run is not refused.
func TestPrecheckRefusesWhatTheCallWouldAndWritesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tr := newTracker()
	f.env.Files = tr
	writeFile(t, filepath.Join(f.ws, "a.txt"), "a fly\n")
	for _, c := range []struct {
		tool, args, code string // code "": not refused
	}{
		{"write_file", `{"path": "a.txt", "content": "x"}`, fs.CodeStaleRead},
		{"write_file", `{"path": "dir/new.txt", "content": "x"}`, ""},
		{"edit_file", `{"path": "a.txt", "old_string": "fly", "new_string": "bee"}`, fs.CodeStaleRead},
		{"apply_patch", `{"patch": "--- /dev/null\n+++ b/p.txt\n@@ -0,0 +1 @@\n+p\n"}`, ""},
		{"apply_patch", `{"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a wasp\n+a bee\n"}`, fs.CodeStaleRead},
	} {
		res, refused := f.reg.Precheck(context.Background(), c.tool, f.env, json.RawMessage(c.args))
		if refused != (c.code != "") || res.Code != c.code {
			t.Errorf("%s %s: refused %v %+v, want code %q", c.tool, c.args, refused, res, c.code)
		}
	}
	f.call(t, "read_file", map[string]any{"path": "a.txt"}) // now a.txt was read
	for _, c := range []struct {
		tool, args, code string
	}{
		{"edit_file", `{"path": "a.txt", "old_string": "wasp", "new_string": "bee"}`, fs.CodeNoMatch},
		{"edit_file", `{"path": "a.txt", "old_string": "fly", "new_string": "bee"}`, ""},
		{"apply_patch", `{"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a wasp\n+a bee\n"}`, fs.CodePatchConflict},
	} {
		res, refused := f.reg.Precheck(context.Background(), c.tool, f.env, json.RawMessage(c.args))
		if refused != (c.code != "") || res.Code != c.code {
			t.Errorf("read first, %s %s: refused %v %+v, want code %q", c.tool, c.args, refused, res, c.code)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "a.txt")); string(b) != "a fly\n" {
		t.Errorf("a precheck wrote a.txt: %q", b)
	}
	for _, p := range []string{"dir", "p.txt"} {
		if _, err := os.Stat(filepath.Join(f.ws, p)); err == nil {
			t.Errorf("a precheck made %s", p)
		}
	}
	if _, refused := f.reg.Precheck(context.Background(), "read_file", f.env, json.RawMessage(`{"path": "nope"}`)); refused {
		t.Error("read_file has no precheck, and refused")
	}
}
