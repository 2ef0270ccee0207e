//go:build unix

package video_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"steward/backend/tools/browser/video"
)

// TestFramesArePrivate: the screencast's frames and their index are
// written 0600 in a 0700 folder under the most permissive umask.
func TestFramesArePrivate(t *testing.T) { // not parallel: it sets the umask
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "run_1", "frames")
	r, err := video.NewRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.Begin("n1", at(0))
	if err := r.Frame(at(10), frameJPEG(t, 16, 16, palette[0], 0)); err != nil {
		t.Fatal(err)
	}
	r.End("n1", at(20))
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) < 2 {
		t.Fatalf("frames folder holds %d entries: %v", len(entries), err)
	}
	check := func(p string, want fs.FileMode) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %o, want %o", p, fi.Mode().Perm(), want)
		}
	}
	check(filepath.Dir(dir), 0o700)
	check(dir, 0o700)
	for _, e := range entries {
		check(filepath.Join(dir, e.Name()), 0o600)
	}
}
