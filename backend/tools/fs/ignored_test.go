package fs_test

import (
	"path/filepath"
	"testing"

	"steward/backend/tools/fs"
)

// A changed file a person does not review is ignored: generated (caches,
// installed dependencies) or named by a .gitignore above it or by
// .git/info/exclude, a directory's rule covering what is beneath it, a
// later "!" taking a file back.
func TestIgnoredChangedFiles(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for name, content := range map[string]string{
		".gitignore":        "build/\n*.log\n!keep.log\n",
		"sub/.gitignore":    "local.txt\n",
		".git/info/exclude": "secret.txt\n",
	} {
		writeFile(t, filepath.Join(ws, name), content)
	}
	for rel, want := range map[string]bool{
		"src/calc.py": false, "src/__pycache__/calc.cpython-312.pyc": true, "a.pyc": true,
		"node_modules/x/index.js": true, "build/out.bin": true, "deep/build/x": true, "app.log": true, "keep.log": false,
		"sub/local.txt": true, "local.txt": false, "secret.txt": true, "notes.md": false,
	} {
		if got := fs.Ignored(ws, rel); got != want {
			t.Errorf("Ignored(%s) = %v, want %v", rel, got, want)
		}
	}
	if fs.Ignored(filepath.Join(ws, "missing"), "a.pyc") {
		t.Error("a workspace that cannot be opened ignores nothing")
	}
}
