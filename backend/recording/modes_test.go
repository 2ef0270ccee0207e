//go:build unix

package recording_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"steward/backend/recording"
)

// TestImportedArtifactsArePrivate: the artifacts of an imported recording
// are written 0600 in 0700 folders under the most permissive umask.
func TestImportedArtifactsArePrivate(t *testing.T) { // not parallel: it sets the umask
	src := script("r1", 10, 1)
	withArtifacts(t, src)
	data, _ := export(t, src, recording.ExportOptions{})
	b := read(t, data)
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	out := filepath.Join(t.TempDir(), "artifacts", "run_1")
	if err := b.WriteArtifacts(out); err != nil {
		t.Fatal(err)
	}
	seen := 0
	err := filepath.WalkDir(filepath.Dir(out), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %o, want %o", p, fi.Mode().Perm(), want)
		}
		seen++
		return nil
	})
	if err != nil || seen < 4 { // artifacts, run_1, shots, a file or two
		t.Fatalf("walked %d entries: %v", seen, err)
	}
}
