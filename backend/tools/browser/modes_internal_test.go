//go:build unix

package browser

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"steward/backend/tool"
)

// TestScreenshotsArePrivate: a screenshot is written 0600 in 0700 folders
// (the artifacts folder and the run's are made on the way) under the most
// permissive umask: a page may show anything.
func TestScreenshotsArePrivate(t *testing.T) { // not parallel: it sets the umask
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	artifacts := filepath.Join(t.TempDir(), "artifacts")
	env := tool.Env{RunID: "run_1", NodeID: "n2", Artifacts: filepath.Join(artifacts, "run_1")}
	name, err := saveShot(env, []byte("\x89PNG not really"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{
		artifacts: 0o700, env.Artifacts: 0o700, filepath.Join(env.Artifacts, "shots"): 0o700,
		filepath.Join(env.Artifacts, filepath.FromSlash(name)): 0o600,
	}
	for p, mode := range want {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s has mode %o, want %o", p, fi.Mode().Perm(), mode)
		}
	}
}
