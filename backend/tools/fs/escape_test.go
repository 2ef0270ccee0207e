// These tests use Unix symlinks, named pipes, /etc and /proc.

//go:build unix

package fs_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/tools/fs"
)

// TestEscapesLeaveOutsideUntouched sends every tool through paths that lead
// out of the workspace and checks that each is refused and that the sentinel
// directory next to the workspace (and /etc/passwd) is unchanged afterwards;
// glob and grep over the whole workspace pass its symlinks by.
func TestEscapesLeaveOutsideUntouched(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, f.path("file.txt"), "inside")
	mkdir(t, filepath.Join(f.outside, "deep"))
	writeFile(t, filepath.Join(f.outside, "deep", "more.txt"), "more")
	links := map[string]string{
		"etc_link":     "/etc",
		"passwd_link":  "/etc/passwd",
		"proc_root":    "/proc/self/root",
		"out_dir":      "../outside",
		"out_abs":      f.outside,
		"out_file":     "../outside/secret.txt",
		"dangling_out": "../outside/new.txt",
		"chain1":       "chain2",
		"chain2":       "../outside",
		"inside_back":  "../ws/file.txt",
		"loop":         "loop",
		"parent_link":  "..",
		"slash":        "/",
	}
	for name, target := range links {
		symlink(t, target, f.path(name))
	}
	mkdir(t, f.path("sub"))
	symlink(t, "../../outside", f.path("sub/up"))

	paths := []string{
		"..",
		"../outside",
		"../outside/secret.txt",
		"../outside/new.txt",
		"a/../../outside/new.txt",
		"sub/../../outside/secret.txt",
		"new/../../outside/new.txt",
		"../ws/file.txt",
		"/etc/passwd",
		"/",
		filepath.Join(f.outside, "secret.txt"),
		filepath.Join(f.outside, "new.txt"),
		f.ws + "/../outside/secret.txt",
		"/proc/self/root/etc/passwd",
		"/proc/self/root" + f.outside + "/secret.txt",
		"proc_root/etc/passwd",
		"passwd_link",
		"etc_link/passwd",
		"out_dir/secret.txt",
		"out_dir/new.txt",
		"out_dir/x/y.txt",
		"out_abs/deep/more.txt",
		"out_file",
		"dangling_out",
		"chain1/secret.txt",
		"sub/up/secret.txt",
		"inside_back",
		"loop",
		"x\n/../../outside/new.txt",
		"file.txt\x00/../../outside/secret.txt",
		strings.Repeat("a", 256),
		"parent_link/outside/secret.txt",
		"parent_link/outside/new.txt",
		"slash/etc/passwd",
		"/proc/self/cwd",
		"/proc/self/root" + f.ws + "/file.txt",
		"out_dir/../ws/file.txt",
		"file.txt/../../outside/secret.txt",
		"sub/up/../secret.txt",
		strings.Repeat("a/", 2100) + "x",
		"x\u202e/../../outside/new.txt",
		"tab\t/../../outside/new.txt",
		strings.Repeat("../", 50) + "etc/passwd",
		"//etc/passwd",
		"/../outside/secret.txt",
	}
	if len(paths) < 30 {
		t.Fatalf("%d escape attempts, want at least 30", len(paths))
	}

	before := snapshot(t, f.outside)
	passwd := readFile(t, "/etc/passwd")
	for _, p := range paths {
		for _, c := range escapeCalls(p) {
			res := f.call(t, c.tool, c.args)
			if !res.IsError || (res.Code != fs.CodeOutside && res.Code != fs.CodeInvalidPath) {
				t.Errorf("%s %q = %+v, want %s or %s", c.tool, p, res, fs.CodeOutside, fs.CodeInvalidPath)
			}
			leaked(t, c.tool, p, res.Output)
		}
	}
	// Walking the whole workspace passes the links without following them.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"glob", map[string]any{"pattern": "**"}},
		{"glob", map[string]any{"pattern": "**/*.txt"}},
		{"grep", map[string]any{"pattern": "sentinel|ro{1}ot:|more"}},
		{"grep", map[string]any{"pattern": ".", "glob": "**/*"}},
	} {
		res := f.call(t, c.tool, c.args)
		if res.IsError {
			t.Errorf("%s %v: %s", c.tool, c.args, res.Output)
		}
		leaked(t, c.tool, "", res.Output)
		if strings.Contains(res.Output, "secret.txt") || strings.Contains(res.Output, "more.txt") {
			t.Errorf("%s %v lists a file outside: %q", c.tool, c.args, res.Output)
		}
	}
	if diff := cmp.Diff(before, snapshot(t, f.outside)); diff != "" {
		t.Errorf("outside directory changed (-before +after):\n%s", diff)
	}
	if readFile(t, "/etc/passwd") != passwd {
		t.Error("/etc/passwd changed")
	}
	entries, err := os.ReadDir(filepath.Dir(f.ws))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("%d entries next to the workspace, want ws and outside", len(entries))
	}
}

// escapeCall is one tool call that names p.
type escapeCall struct {
	tool string
	args map[string]any
}

// escapeCalls returns a call of every tool that tries to reach p: to read,
// list, search, create, change or delete it.
func escapeCalls(p string) []escapeCall {
	a, b := strconv.Quote("a/"+p), strconv.Quote("b/"+p)
	return []escapeCall{
		{"read_file", map[string]any{"path": p}},
		{"list_dir", map[string]any{"path": p}},
		{"write_file", map[string]any{"path": p, "content": "pwned"}},
		{"edit_file", map[string]any{"path": p, "old_string": "sentinel", "new_string": "pwned"}},
		{"apply_patch", map[string]any{"patch": "--- " + a + "\n+++ " + b + "\n@@ -1 +1 @@\n-" + strings.TrimSuffix(sentinelContent, "\n") + "\n+pwned\n"}},
		{"apply_patch", map[string]any{"patch": "--- /dev/null\n+++ " + b + "\n@@ -0,0 +1 @@\n+pwned\n"}},
		{"apply_patch", map[string]any{"patch": "--- " + a + "\n+++ /dev/null\n@@ -1 +0,0 @@\n-" + strings.TrimSuffix(sentinelContent, "\n") + "\n"}},
		{"glob", map[string]any{"pattern": "*", "path": p}},
		{"glob", map[string]any{"pattern": p + "/**"}},
		{"grep", map[string]any{"pattern": "sentinel|ro{1}ot:", "path": p}},
	}
}

// leaked fails the test when output shows what lies outside.
func leaked(t *testing.T, tool, p, output string) {
	t.Helper()
	if strings.Contains(output, "must not leak") {
		t.Errorf("%s %q leaked the sentinel: %q", tool, p, output)
	}
	if strings.Contains(output, "root:") {
		t.Errorf("%s %q leaked /etc/passwd", tool, p)
	}
}
