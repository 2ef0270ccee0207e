//go:build unix

package fs_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/tool"
	"steward/backend/tools/fs"
)

// tracker is a tool.Files that behaves as tool.Files says: a file that
// exists may be replaced only when the run read or wrote its current
// content.
type tracker struct {
	mu      sync.Mutex
	known   map[string][32]byte // what the run last read or wrote
	reads   map[string]string   // the whole content each Read reported
	changes []change
	fail    error // returned by Changed, when set
}

// change is one Changed call; nil pointers are nil contents.
type change struct {
	Path          string
	Before, After *string
}

var _ tool.Files = (*tracker)(nil)

func newTracker() *tracker {
	return &tracker{known: map[string][32]byte{}, reads: map[string]string{}}
}

func (tr *tracker) Read(path string, content []byte) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.known[path] = sha256.Sum256(content)
	tr.reads[path] = string(content)
}

func (tr *tracker) CheckWrite(path string, current []byte, exists bool) error {
	if !exists {
		return nil
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	sum, ok := tr.known[path]
	switch {
	case !ok:
		return fmt.Errorf("%s exists and this run has not read it: read it with read_file first", path)
	case sum != sha256.Sum256(current):
		return fmt.Errorf("%s changed on disk since this run read it: read it again", path)
	}
	return nil
}

func (tr *tracker) Changed(path string, before, after []byte) error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.fail != nil {
		return tr.fail
	}
	str := func(b []byte) *string {
		if b == nil {
			return nil
		}
		s := string(b)
		return &s
	}
	tr.changes = append(tr.changes, change{Path: path, Before: str(before), After: str(after)})
	if after == nil {
		delete(tr.known, path)
	} else {
		tr.known[path] = sha256.Sum256(after)
	}
	return nil
}

func ptr(s string) *string { return &s }

// TestReadBeforeWrite runs every way a file tool may or may not change a
// file of a tracked run.
func TestReadBeforeWrite(t *testing.T) {
	t.Parallel()
	type step struct {
		tool string
		args any
		code string // "" for success
	}
	patch := func(p string) map[string]any { return map[string]any{"patch": p} }
	editOld := map[string]any{"path": "old.txt", "old_string": "old", "new_string": "new"}
	tests := []struct {
		name    string
		steps   []step
		disk    func(t *testing.T, f fixture) // between the first step and the rest
		changes []change
		files   map[string]string // content afterwards
	}{
		{name: "write to an unread file is refused",
			steps: []step{{"write_file", map[string]any{"path": "old.txt", "content": "x"}, fs.CodeStaleRead}},
			files: map[string]string{"old.txt": "old\n"}},
		{name: "write after read",
			steps:   []step{{"read_file", `{"path":"old.txt"}`, ""}, {"write_file", map[string]any{"path": "old.txt", "content": "x"}, ""}},
			changes: []change{{"old.txt", ptr("old\n"), ptr("x")}},
			files:   map[string]string{"old.txt": "x"}},
		{name: "write after the file changed on disk is refused",
			steps: []step{{"read_file", `{"path":"old.txt"}`, ""}, {"write_file", map[string]any{"path": "old.txt", "content": "x"}, fs.CodeStaleRead}},
			disk:  func(t *testing.T, f fixture) { writeFile(t, f.path("old.txt"), "a person's change\n") },
			files: map[string]string{"old.txt": "a person's change\n"}},
		{name: "read again after the change",
			steps:   []step{{"read_file", `{"path":"old.txt"}`, ""}, {"read_file", `{"path":"old.txt"}`, ""}, {"edit_file", map[string]any{"path": "old.txt", "old_string": "person", "new_string": "model"}, ""}},
			disk:    func(t *testing.T, f fixture) { writeFile(t, f.path("old.txt"), "a person's change\n") },
			changes: []change{{"old.txt", ptr("a person's change\n"), ptr("a model's change\n")}},
			files:   map[string]string{"old.txt": "a model's change\n"}},
		{name: "create without reading",
			steps:   []step{{"write_file", map[string]any{"path": "new/n.txt", "content": "n"}, ""}},
			changes: []change{{"new/n.txt", nil, ptr("n")}},
			files:   map[string]string{"new/n.txt": "n"}},
		{name: "edit after own write",
			steps: []step{
				{"write_file", map[string]any{"path": "n.txt", "content": "one two"}, ""},
				{"edit_file", map[string]any{"path": "n.txt", "old_string": "two", "new_string": "2"}, ""},
				{"edit_file", map[string]any{"path": "n.txt", "old_string": "one", "new_string": "1"}, ""},
			},
			changes: []change{{"n.txt", nil, ptr("one two")}, {"n.txt", ptr("one two"), ptr("one 2")}, {"n.txt", ptr("one 2"), ptr("1 2")}},
			files:   map[string]string{"n.txt": "1 2"}},
		{name: "edit of an unread file is refused",
			steps: []step{{"edit_file", editOld, fs.CodeStaleRead}},
			files: map[string]string{"old.txt": "old\n"}},
		{name: "a range of lines counts as reading the file",
			steps:   []step{{"read_file", `{"path":"old.txt","start_line":1,"end_line":1}`, ""}, {"edit_file", editOld, ""}},
			changes: []change{{"old.txt", ptr("old\n"), ptr("new\n")}}},
		{name: "edit through a symlink after reading the link",
			steps:   []step{{"read_file", `{"path":"link.txt"}`, ""}, {"edit_file", map[string]any{"path": "old.txt", "old_string": "old", "new_string": "new"}, ""}},
			changes: []change{{"old.txt", ptr("old\n"), ptr("new\n")}}},
		{name: "patch of an unread file is refused",
			steps: []step{{"apply_patch", patch("--- a/old.txt\n+++ b/old.txt\n@@ -1 +1 @@\n-old\n+new\n"), fs.CodeStaleRead}},
			files: map[string]string{"old.txt": "old\n"}},
		{name: "patch creating a file without reading",
			steps:   []step{{"apply_patch", patch("--- /dev/null\n+++ b/p.txt\n@@ -0,0 +1 @@\n+p\n"), ""}},
			changes: []change{{"p.txt", nil, ptr("p\n")}}},
		{name: "patch of two files, one unread: nothing written",
			steps: []step{
				{"read_file", `{"path":"old.txt"}`, ""},
				{"apply_patch", patch("--- a/old.txt\n+++ b/old.txt\n@@ -1 +1 @@\n-old\n+new\n--- a/other.txt\n+++ b/other.txt\n@@ -1 +1 @@\n-other\n+new\n"), fs.CodeStaleRead},
			},
			files: map[string]string{"old.txt": "old\n", "other.txt": "other\n"}},
		{name: "patch changing and deleting read files",
			steps: []step{
				{"read_file", `{"path":"old.txt"}`, ""},
				{"read_file", `{"path":"other.txt"}`, ""},
				{"apply_patch", patch("--- a/old.txt\n+++ b/old.txt\n@@ -1 +1 @@\n-old\n+new\n--- a/other.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-other\n"), ""},
			},
			changes: []change{{"old.txt", ptr("old\n"), ptr("new\n")}, {"other.txt", ptr("other\n"), nil}},
			files:   map[string]string{"old.txt": "new\n"}},
		{name: "a failed read records nothing",
			steps: []step{{"read_file", `{"path":"old.txt","start_line":9}`, tool.CodeInvalidArguments}, {"edit_file", editOld, fs.CodeStaleRead}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			tr := newTracker()
			f.env.Files = tr
			writeFile(t, f.path("old.txt"), "old\n")
			writeFile(t, f.path("other.txt"), "other\n")
			symlink(t, "old.txt", f.path("link.txt"))
			for i, s := range tt.steps {
				if i == 1 && tt.disk != nil {
					tt.disk(t, f)
				}
				res := f.call(t, s.tool, s.args)
				if s.code == "" && res.IsError || s.code != "" && res.Code != s.code {
					t.Fatalf("step %d %s: %+v, want code %q", i+1, s.tool, res, s.code)
				}
				if s.code == fs.CodeStaleRead && !strings.Contains(res.Output, "read") {
					t.Errorf("step %d: %q does not tell the model to read the file", i+1, res.Output)
				}
			}
			if diff := cmp.Diff(tt.changes, tr.changes); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			for name, want := range tt.files {
				if got := readFile(t, f.path(name)); got != want {
					t.Errorf("%s holds %q, want %q", name, got, want)
				}
			}
			if _, ok := tt.files["other.txt"]; !ok && tt.name == "patch changing and deleting read files" {
				if _, err := os.Stat(f.path("other.txt")); !os.IsNotExist(err) {
					t.Errorf("other.txt not deleted: %v", err)
				}
			}
			assertNoTempFiles(t, f.ws)
		})
	}
}

// TestReadRecordsWholeContent: a range read reports the whole file.
func TestReadRecordsWholeContent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tr := newTracker()
	f.env.Files = tr
	writeFile(t, f.path("a.txt"), "1\n2\n3\n")
	f.call(t, "read_file", `{"path":"a.txt","start_line":2,"end_line":2}`)
	f.call(t, "read_file", `{"path":"missing.txt"}`)
	if diff := cmp.Diff(map[string]string{"a.txt": "1\n2\n3\n"}, tr.reads); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
}

// TestChangedFailsAsSystemError: the change is made, its record lost; that
// is the system's failure, not the model's.
func TestChangedFailsAsSystemError(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tr := newTracker()
	tr.fail = errors.New("disk full")
	f.env.Files = tr
	for name, args := range map[string]string{
		"write_file":  `{"path":"w.txt","content":"x"}`,
		"apply_patch": `{"patch":"--- /dev/null\n+++ b/p.txt\n@@ -0,0 +1 @@\n+p\n"}`,
	} {
		_, err := f.reg.Call(context.Background(), f.env, name, json.RawMessage(args))
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: error %v, want the record's", name, err)
		}
	}
}

// TestTrackedLargeFile: a file over fs.MaxEditBytes is read in ranges but
// not recorded, and the tools refuse to replace it.
func TestTrackedLargeFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tr := newTracker()
	f.env.Files = tr
	writeFile(t, f.path("huge.txt"), strings.Repeat("0123456789abcde\n", fs.MaxEditBytes/16+1))
	check(t, f.call(t, "read_file", `{"path":"huge.txt","start_line":1,"end_line":1}`), want{output: fmt.Sprintf("huge.txt (lines 1-1 of %d)\n0123456789abcde\n", fs.MaxEditBytes/16+1)})
	if len(tr.reads) != 0 {
		t.Error("a file over MaxEditBytes was recorded")
	}
	check(t, f.call(t, "write_file", `{"path":"huge.txt","content":"x"}`), want{code: fs.CodeTooLarge, contains: []string{"16 MiB"}})
	check(t, f.call(t, "edit_file", `{"path":"huge.txt","old_string":"0","new_string":"1"}`), want{code: fs.CodeTooLarge})
}

// The repository's own files are not the file tools' to change: a hook or
// a config filter written there would run on the next git command.
func TestGitDirIsProtected(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, d := range []string{".git/hooks", "sub/.git"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".git/config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry()
	for _, tl := range fs.Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".git", filepath.Join(ws, "gitlink")); err != nil {
		t.Fatal(err)
	}
	env := tool.Env{Workspace: ws}
	calls := []struct{ name, args string }{
		{"write_file", `{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\necho pwned"}`},
		{"edit_file", `{"path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = evil"}`},
		{"apply_patch", `{"patch": "--- /dev/null\n+++ b/sub/.git/config\n@@ -0,0 +1 @@\n+[core]\n"}`},
		// A .git file points git at another repository.
		{"write_file", `{"path": "other/.git", "content": "gitdir: /tmp/evil"}`},
		// The same folder on a case-insensitive file system, and through a link.
		{"write_file", `{"path": ".GIT/hooks/pre-commit", "content": "#!/bin/sh\necho pwned"}`},
		{"write_file", `{"path": "sub/.Git./config", "content": "[core]"}`},
		{"write_file", `{"path": "gitlink/hooks/pre-commit", "content": "#!/bin/sh\necho pwned"}`},
	}
	for _, c := range calls {
		res, err := reg.Call(context.Background(), env, c.name, json.RawMessage(c.args))
		if err != nil || !res.IsError || res.Code != fs.CodeProtected {
			t.Errorf("%s %s = %+v, %v; want %s", c.name, c.args, res, err, fs.CodeProtected)
		}
	}
	for _, p := range []string{"other/.git", ".GIT", "sub/.Git."} {
		if _, err := os.Lstat(filepath.Join(ws, p)); !os.IsNotExist(err) {
			t.Errorf("%s was written", p)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/hooks/pre-commit")); !os.IsNotExist(err) {
		t.Error("a hook was written")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git/config")); string(b) != "[core]\n" {
		t.Errorf(".git/config = %q", b)
	}
}
