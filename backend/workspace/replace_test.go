package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"steward/backend/workspace"
)

// TestReplaceRemovesTempOnFailure: a write whose rename fails leaves no
// temp file behind.
func TestReplaceRemovesTempOnFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "target", "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := workspace.Replace(root, "target", []byte("data"), 0o644, false); err == nil {
		t.Fatal("renaming a file over a directory succeeded")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if workspace.IsTemp(e.Name()) {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}
	if len(entries) != 1 {
		t.Errorf("%d entries, want only target", len(entries))
	}
}
