//go:build unix

package store_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"steward/backend/store"
)

// withUmask sets the process's umask for the rest of the test. The umask is
// the process's: tests that use it must not run in parallel, and since
// parallel tests wait until every sequential one has finished, none runs
// meanwhile.
func withUmask(t *testing.T, mask int) {
	t.Helper()
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// TestFilesArePrivate: the database, its -wal and -shm files are 0600 in a
// 0700 folder under the most permissive umask, when they are made and when
// an older Steward (or a copy, an archive restore) left them looser.
func TestFilesArePrivate(t *testing.T) { // not parallel: it sets the umask
	withUmask(t, 0)
	tests := []struct {
		name  string
		loose func(t *testing.T, dir, db string) // what was there before Open
	}{
		{"new", func(*testing.T, string, string) {}},
		{"left looser", func(t *testing.T, dir, db string) {
			st, err := store.Open(db, nil)
			if err != nil {
				t.Fatal(err)
			}
			mustAppend(t, st, created("r0"))
			// Open again while this one is open, so that the -wal and -shm
			// files exist when the second Open looks at them.
			t.Cleanup(func() { st.Close() })
			for _, p := range []string{dir, db, db + "-wal", db + "-shm"} {
				mode := fs.FileMode(0o666)
				if p == dir {
					mode = 0o777
				}
				if err := os.Chmod(p, mode); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			db := filepath.Join(dir, "steward.db")
			if err := os.Mkdir(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			if tt.name == "new" {
				if err := os.Remove(dir); err != nil { // Open makes it
					t.Fatal(err)
				}
			}
			tt.loose(t, dir, db)
			st, err := store.Open(db, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			mustAppend(t, st, created("r1")) // the WAL and its index exist now
			want := map[string]fs.FileMode{dir: 0o700, db: 0o600, db + "-wal": 0o600, db + "-shm": 0o600}
			for p, mode := range want {
				fi, err := os.Stat(p)
				if err != nil {
					t.Errorf("%s: %v", filepath.Base(p), err)
					continue
				}
				if fi.Mode().Perm() != mode {
					t.Errorf("%s has mode %o, want %o", filepath.Base(p), fi.Mode().Perm(), mode)
				}
			}
		})
	}
}
