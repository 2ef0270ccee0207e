package fs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"steward/backend/tools/fs"
)

// A write tool's precheck says what the call would refuse, as the call
// would say it, and changes nothing; a call that would run is not refused.
func TestPrecheckRefusesWhatTheCallWouldAndWritesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tr := newTracker()
	f.env.Files = tr
	writeFile(t, filepath.Join(f.ws, "a.txt"), "a fly\n")
	for _, c := range []struct {
		tool, args, code string // code "": not refused
	}{
		{"write_file", `{"path": "a.txt", "content": "x"}`, fs.CodeStaleRead},
		{"write_file", `{"path": "dir/new.txt", "content": "x"}`, ""},
		{"edit_file", `{"path": "a.txt", "old_string": "fly", "new_string": "bee"}`, fs.CodeStaleRead},
		{"apply_patch", `{"patch": "--- /dev/null\n+++ b/p.txt\n@@ -0,0 +1 @@\n+p\n"}`, ""},
		{"apply_patch", `{"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a wasp\n+a bee\n"}`, fs.CodeStaleRead},
	} {
		res, refused := f.reg.Precheck(context.Background(), c.tool, f.env, json.RawMessage(c.args))
		if refused != (c.code != "") || res.Code != c.code {
			t.Errorf("%s %s: refused %v %+v, want code %q", c.tool, c.args, refused, res, c.code)
		}
	}
	f.call(t, "read_file", map[string]any{"path": "a.txt"}) // now a.txt was read
	for _, c := range []struct {
		tool, args, code string
	}{
		{"edit_file", `{"path": "a.txt", "old_string": "wasp", "new_string": "bee"}`, fs.CodeNoMatch},
		{"edit_file", `{"path": "a.txt", "old_string": "fly", "new_string": "bee"}`, ""},
		{"apply_patch", `{"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a wasp\n+a bee\n"}`, fs.CodePatchConflict},
	} {
		res, refused := f.reg.Precheck(context.Background(), c.tool, f.env, json.RawMessage(c.args))
		if refused != (c.code != "") || res.Code != c.code {
			t.Errorf("read first, %s %s: refused %v %+v, want code %q", c.tool, c.args, refused, res, c.code)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "a.txt")); string(b) != "a fly\n" {
		t.Errorf("a precheck wrote a.txt: %q", b)
	}
	for _, p := range []string{"dir", "p.txt"} {
		if _, err := os.Stat(filepath.Join(f.ws, p)); err == nil {
			t.Errorf("a precheck made %s", p)
		}
	}
	if _, refused := f.reg.Precheck(context.Background(), "read_file", f.env, json.RawMessage(`{"path": "nope"}`)); refused {
		t.Error("read_file has no precheck, and refused")
	}
}

// A write tool's preview is the diff of what the call would change against
// the file as it is now: true line numbers and three lines of context (a
// change at line 12 reads @@ -9,7 +9,7 @@), a new file's whole content, a
// patch's every file; it writes nothing, and a call the tool would refuse
// has none.
func TestPreviewIsTheDiffAgainstTheFileNow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var lines string
	for i := 1; i <= 20; i++ {
		lines += "line " + strconv.Itoa(i) + "\n"
	}
	writeFile(t, filepath.Join(f.ws, "calc.py"), lines)
	writeFile(t, filepath.Join(f.ws, "b.txt"), "one\ntwo\n")
	for _, c := range []struct {
		name, tool, args string
		want             []string // substrings of the diff, in order
	}{
		{"edit at line 12", "edit_file", `{"path": "calc.py", "old_string": "line 12\n", "new_string": "line twelve\nline 12b\n"}`,
			[]string{"--- a/calc.py\n+++ b/calc.py\n@@ -9,7 +9,8 @@\n line 9\n line 10\n line 11\n-line 12\n+line twelve\n+line 12b\n line 13\n line 14\n line 15\n"}},
		{"new file", "write_file", `{"path": "new/hello.py", "content": "print('hi')\nprint('bye')\n"}`,
			[]string{"--- /dev/null\n+++ b/new/hello.py\n@@ -0,0 +1,2 @@\n+print('hi')\n+print('bye')\n"}},
		{"rewrite", "write_file", `{"path": "b.txt", "content": "one\n2\n"}`,
			[]string{"--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"}},
		{"patch of two files", "apply_patch", `{"patch": "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-one\n+1\n two\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+c\n"}`,
			[]string{"--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-one\n+1\n two\n", "--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+c\n"}},
	} {
		p, ok := f.reg.Preview(context.Background(), c.tool, f.env, json.RawMessage(c.args))
		if !ok {
			t.Errorf("%s: no preview", c.name)
			continue
		}
		rest := p.Diff
		for _, w := range c.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: preview lacks (in order)\n%s\ngot:\n%s", c.name, w, p.Diff)
				break
			}
			rest = rest[i+len(w):]
		}
		if p.Note != "" {
			t.Errorf("%s: note %q", c.name, p.Note)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "b.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("a preview wrote b.txt: %q", b)
	}
	for _, p := range []string{"new", "c.txt"} {
		if _, err := os.Stat(filepath.Join(f.ws, p)); err == nil {
			t.Errorf("a preview made %s", p)
		}
	}
	if p, ok := f.reg.Preview(context.Background(), "edit_file", f.env, json.RawMessage(`{"path": "b.txt", "old_string": "nope", "new_string": "x"}`)); ok {
		t.Errorf("an edit the tool refuses has a preview: %+v", p)
	}
	if _, ok := f.reg.Preview(context.Background(), "read_file", f.env, json.RawMessage(`{"path": "b.txt"}`)); ok {
		t.Error("read_file changes nothing, and has a preview")
	}

	// A long diff is cut at a line, and says so; a binary file says what
	// it is instead of a diff.
	big := strings.Repeat("a line of text that is long enough\n", 2000)
	p, ok := f.reg.Preview(context.Background(), "write_file", f.env, json.RawMessage(`{"path": "big.txt", "content": `+strconv.Quote(big)+`}`))
	if !ok || len(p.Diff) > fs.MaxPreview || !strings.HasSuffix(p.Diff, "\n") || !strings.Contains(p.Note, "diff cut at") {
		t.Errorf("big file: %d bytes, note %q", len(p.Diff), p.Note)
	}
	p, ok = f.reg.Preview(context.Background(), "write_file", f.env, json.RawMessage(`{"path": "bin.dat", "content": "a\u0000b"}`))
	if !ok || p.Diff != "" || !strings.Contains(p.Note, "bin.dat: binary file") {
		t.Errorf("binary file: %+v", p)
	}
}
