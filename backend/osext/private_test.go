//go:build unix

package osext_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"steward/backend/osext"
)

// TestPrivate: what osext makes is owner-only under the most permissive
// umask; what it finds looser is made so; parents it did not make and
// missing files are left alone.
func TestPrivate(t *testing.T) { // not parallel: it sets the umask
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	mode := func(p string) fs.FileMode {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	loose := filepath.Join(root, "loose")
	if err := os.Mkdir(loose, 0o777); err != nil {
		t.Fatal(err)
	}
	looseFile := filepath.Join(root, "loose.db")
	if err := os.WriteFile(looseFile, []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		do   func() error
		path string
		want fs.FileMode
	}{
		{"a new folder and its new parent", func() error { return osext.MkdirPrivate(filepath.Join(root, "a", "b")) }, filepath.Join(root, "a", "b"), 0o700},
		{"the new parent", func() error { return nil }, filepath.Join(root, "a"), 0o700},
		{"a parent that existed", func() error { return nil }, root, 0o755},
		{"a looser folder", func() error { return osext.MkdirPrivate(loose) }, loose, 0o700},
		{"a new file", func() error { return osext.CreatePrivate(filepath.Join(root, "new.db")) }, filepath.Join(root, "new.db"), 0o600},
		{"a looser file", func() error { return osext.CreatePrivate(looseFile) }, looseFile, 0o600},
	}
	for _, tt := range tests {
		if err := tt.do(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := mode(tt.path); got != tt.want {
			t.Errorf("%s: mode %o, want %o", tt.name, got, tt.want)
		}
	}
	if b, err := os.ReadFile(looseFile); err != nil || string(b) != "x" {
		t.Errorf("CreatePrivate changed what the file held: %q, %v", b, err)
	}
	if err := osext.Private(filepath.Join(root, "missing-wal")); err != nil {
		t.Errorf("Private of a missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "missing-wal")); !os.IsNotExist(err) {
		t.Errorf("Private made a missing file: %v", err)
	}
}
