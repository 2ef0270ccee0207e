package workspace_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/workspace"
)

// TestCopyTree: everything is copied (modes, .git, links as links, never
// followed), a socket is skipped and counted, and dst must not exist.
func TestCopyTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, outside := filepath.Join(dir, "ws"), filepath.Join(dir, "secret")
	must(t, os.MkdirAll(filepath.Join(src, ".git", "refs"), 0o755))
	must(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "a.txt"), []byte("alpha"), 0o644))
	must(t, os.WriteFile(filepath.Join(src, "sub", "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, ".git", "HEAD"), []byte("ref: main\n"), 0o644))
	must(t, os.WriteFile(outside, []byte("not for the copy"), 0o600))
	must(t, os.Symlink(outside, filepath.Join(src, "link")))
	must(t, syscall.Mkfifo(filepath.Join(src, "pipe"), 0o644))

	dst := filepath.Join(dir, "ws-fork-run_1")
	st, err := workspace.CopyTree(src, dst, workspace.CopyLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(workspace.CopyStats{Copied: 4, Skipped: 1, Bytes: int64(len("alpha") + len("#!/bin/sh\n") + len("ref: main\n"))}, st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{"a.txt": "alpha", "sub/run.sh": "#!/bin/sh\n", ".git/HEAD": "ref: main\n"} {
		b, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(dst, "sub", "run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode: %v, %v; want 0755", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(dst, "link")); err != nil || target != outside {
		t.Errorf("link: %q, %v; want a link to %s", target, err, outside)
	}
	if _, err := os.Lstat(filepath.Join(dst, "pipe")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the pipe was copied: %v", err)
	}

	// Again to the same place: refused, the first copy untouched.
	must(t, os.WriteFile(filepath.Join(dst, "a.txt"), []byte("edited in the copy"), 0o644))
	if _, err := workspace.CopyTree(src, dst, workspace.CopyLimits{}); !errors.Is(err, workspace.ErrCopyExists) {
		t.Fatalf("copy onto an existing folder: %v; want ErrCopyExists", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "a.txt")); string(b) != "edited in the copy" {
		t.Errorf("the existing folder was written: a.txt holds %q", b)
	}
}

// TestCopyTreeBounds: a folder over either bound is refused, naming the
// bound, and nothing is created.
func TestCopyTreeBounds(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		must(t, os.WriteFile(filepath.Join(src, n), []byte("0123456789"), 0o644))
	}
	for _, tc := range []struct {
		name string
		lim  workspace.CopyLimits
		want string
	}{
		{"files", workspace.CopyLimits{Files: 2}, "more than 2 files and folders"},
		{"bytes", workspace.CopyLimits{Bytes: 25}, "more than 25 bytes"},
		{"both fit", workspace.CopyLimits{Files: 3, Bytes: 30}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "copy")
			_, err := workspace.CopyTree(src, dst, tc.lim)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("within the bounds: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want one saying %q", err, tc.want)
			}
			if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("refused copy left %s: %v", dst, err)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
