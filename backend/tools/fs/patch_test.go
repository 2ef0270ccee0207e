//go:build unix

package fs_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/tool"
	"steward/backend/tools/fs"
)

func TestApplyPatch(t *testing.T) {
	t.Parallel()
	initial := map[string]string{
		"a.go":      "package a\n\nfunc A() int {\n\treturn 1\n}\n",
		"b.txt":     "one\ntwo\nthree\n",
		"gone.txt":  "bye\n",
		"empty.txt": "",
		"bin.dat":   "x\x00y",
	}
	tests := []struct {
		name  string
		patch string
		want  want
		after map[string]string // files that differ from initial; "" with deleted
		gone  []string
	}{
		{"git diff of two files",
			"diff --git a/a.go b/a.go\nindex 1..2 100644\n--- a/a.go\n+++ b/a.go\n@@ -3,3 +3,3 @@\n func A() int {\n-\treturn 1\n+\treturn 2\n }\n" +
				"diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,4 @@\n one\n+one and a half\n two\n three\n",
			want{output: "applied the patch to 2 files:\na.go: 1 hunk, +1 -1 lines\nb.txt: 1 hunk, +1 -0 lines\n"},
			map[string]string{"a.go": "package a\n\nfunc A() int {\n\treturn 2\n}\n", "b.txt": "one\none and a half\ntwo\nthree\n"}, nil},
		{"diff -u without prefixes, offset",
			"--- b.txt\t2024-01-01\n+++ b.txt\t2024-01-02\n@@ -5,2 +5,2 @@\n two\n-three\n+3\n",
			want{output: "applied the patch to 1 file:\nb.txt: 1 hunk, +1 -1 lines\n(hunk 1 of b.txt applied 3 lines above the line its header states)\n"},
			map[string]string{"b.txt": "one\ntwo\n3\n"}, nil},
		{"create, with parents, and delete",
			"--- /dev/null\n+++ b/new/dir/n.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
			want{output: "applied the patch to 2 files:\nnew/dir/n.txt: created, 2 lines\ngone.txt: deleted\n"},
			map[string]string{"new/dir/n.txt": "hello\nworld\n"}, []string{"gone.txt"}},
		{"git empty files",
			"diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\ndiff --git a/empty.txt b/empty.txt\ndeleted file mode 100644\nindex e69de29..0000000\n",
			want{output: "applied the patch to 2 files:\ne.txt: created, 0 lines\nempty.txt: deleted\n"},
			map[string]string{"e.txt": ""}, []string{"empty.txt"}},
		{"same file twice",
			"--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-one\n+1\n--- a/b.txt\n+++ b/b.txt\n@@ -3 +3 @@\n-three\n+3\n",
			want{output: "applied the patch to 1 file:\nb.txt: 2 hunks, +2 -2 lines\n"},
			map[string]string{"b.txt": "1\ntwo\n3\n"}, nil},

		{"second file does not apply: nothing written",
			"--- a/a.go\n+++ b/a.go\n@@ -4 +4 @@\n-\treturn 1\n+\treturn 2\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\n-TWO\n+2\n",
			want{code: fs.CodePatchConflict, contains: []string{"hunk 1 of b.txt (@@ -1,2 +1,2 @@) does not apply", "line 2 to be\n\t\"TWO\"\nbut the file has\n\t\"two\"", "nothing was changed"}}, nil, nil},
		{"creating an existing file",
			"--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+x\n",
			want{code: fs.CodePatchConflict, contains: []string{"creates b.txt", "already exists"}}, nil, nil},
		{"changing a missing file",
			"--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n",
			want{code: fs.CodePatchConflict, contains: []string{"missing.txt, which does not exist", "/dev/null"}}, nil, nil},
		{"deleting leaves lines",
			"--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n",
			want{code: fs.CodePatchConflict, contains: []string{"leave 2 lines"}}, nil, nil},
		{"binary file",
			"--- a/bin.dat\n+++ b/bin.dat\n@@ -1 +1 @@\n-x\n+y\n",
			want{code: fs.CodeBinary}, nil, nil},
		{"not a patch",
			"please make the function return 2",
			want{code: fs.CodeInvalidPatch, contains: []string{"--- a/path"}}, nil, nil},
		{"a path outside",
			"--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-one\n+1\n--- /dev/null\n+++ b/../outside/x.txt\n@@ -0,0 +1 @@\n+x\n",
			want{code: fs.CodeOutside}, nil, nil},
		{"missing argument", ``, want{code: tool.CodeInvalidArguments}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			for name, content := range initial {
				writeFile(t, f.path(name), content)
			}
			before := snapshot(t, f.outside)
			var args any = map[string]any{"patch": tt.patch}
			if tt.patch == "" {
				args = `{}`
			}
			check(t, f.call(t, "apply_patch", args), tt.want)
			wantFiles := map[string]string{}
			for name, content := range initial {
				wantFiles[name] = content
			}
			for name, content := range tt.after {
				wantFiles[name] = content
			}
			for _, name := range tt.gone {
				delete(wantFiles, name)
				if _, err := os.Lstat(f.path(name)); !os.IsNotExist(err) {
					t.Errorf("%s still exists", name)
				}
			}
			got := map[string]string{}
			for name := range wantFiles {
				if b, err := os.ReadFile(f.path(name)); err == nil {
					got[name] = string(b)
				}
			}
			if diff := cmp.Diff(wantFiles, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, snapshot(t, f.outside)); diff != "" {
				t.Errorf("outside changed:\n%s", diff)
			}
			if _, err := os.Stat(f.path("new")); tt.want.code != "" && !os.IsNotExist(err) {
				t.Error("a failed patch created a directory")
			}
			assertNoTempFiles(t, f.ws)
		})
	}
}

// TestApplyPatchKeepsMode: a patched file keeps its permissions.
func TestApplyPatchKeepsMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, f.path("run.sh"), "echo 1\n")
	if err := os.Chmod(f.path("run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	check(t, f.call(t, "apply_patch", map[string]any{"patch": "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo 1\n+echo 2\n"}),
		want{output: "applied the patch to 1 file:\nrun.sh: 1 hunk, +1 -1 lines\n"})
	if fi, err := os.Stat(f.path("run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v (%v), want 0755", fi.Mode(), err)
	}
}
