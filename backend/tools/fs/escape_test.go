// These tests use Unix symlinks, named pipes, /etc and /proc.

//go:build unix

package fs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/tools/fs"
)

// TestEscapesLeaveOutsideUntouched sends every tool through paths that lead
// out of the workspace and checks that each is refused and that the sentinel
// directory next to the workspace is unchanged afterwards.
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
	}

	before := snapshot(t, f.outside)
	passwd := readFile(t, "/etc/passwd")
	for _, p := range paths {
		for _, name := range []string{"write_file", "read_file", "list_dir"} {
			args := map[string]any{"path": p}
			if name == "write_file" {
				args["content"] = "pwned"
			}
			res := f.call(t, name, args)
			if !res.IsError || (res.Code != fs.CodeOutside && res.Code != fs.CodeInvalidPath) {
				t.Errorf("%s %q = %+v, want %s or %s", name, p, res, fs.CodeOutside, fs.CodeInvalidPath)
			}
			if strings.Contains(res.Output, "must not leak") {
				t.Errorf("%s %q leaked the sentinel: %q", name, p, res.Output)
			}
			if strings.Contains(res.Output, "root:") {
				t.Errorf("%s %q leaked /etc/passwd", name, p)
			}
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
