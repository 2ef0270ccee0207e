//go:build unix

package workspace_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"steward/backend/workspace"
)

// TestBlobsArePrivate: kept contents are files of mode 0600 in 0700
// folders under the most permissive umask, also when the blobs folder was
// left looser.
func TestBlobsArePrivate(t *testing.T) { // not parallel: it sets the umask
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	for _, existed := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "blobs")
		if existed {
			if err := os.Mkdir(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		}
		b, err := workspace.NewBlobs(dir)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := b.Put([]byte("OPENAI_API_KEY=a file's content\n"))
		if err != nil {
			t.Fatal(err)
		}
		blob := filepath.Join(dir, sum[:2], sum[2:])
		for p, want := range map[string]fs.FileMode{dir: 0o700, filepath.Dir(blob): 0o700, blob: 0o600} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != want {
				t.Errorf("existed %v: %s has mode %o, want %o", existed, p, fi.Mode().Perm(), want)
			}
		}
	}
}
