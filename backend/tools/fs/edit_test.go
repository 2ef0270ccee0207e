//go:build unix

package fs_test

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"steward/backend/tool"
	"steward/backend/tools/fs"
)

func TestEditFile(t *testing.T) {
	t.Parallel()
	const code = "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	tests := []struct {
		name    string
		file    string // content of f.txt before the call
		args    map[string]any
		want    want
		content string // of f.txt afterwards; "" for unchanged
	}{
		{"once", code, map[string]any{"old_string": "func a() {\n\treturn 1", "new_string": "func a() {\n\treturn 2"},
			want{output: "replaced 1 occurrence in f.txt (at line 1)"}, strings.Replace(code, "return 1", "return 2", 1)},
		{"delete", "keep drop keep", map[string]any{"old_string": " drop", "new_string": ""},
			want{output: "replaced 1 occurrence in f.txt (at line 1)"}, "keep keep"},
		{"replace all", code, map[string]any{"old_string": "return 1", "new_string": "return 3", "replace_all": true},
			want{output: "replaced 2 occurrences in f.txt (at lines 2 and 6)"}, strings.ReplaceAll(code, "return 1", "return 3")},
		{"replace all of one", "x y", map[string]any{"old_string": "y", "new_string": "z", "replace_all": true},
			want{output: "replaced 1 occurrence in f.txt (at line 1)"}, "x z"},
		{"unicode", "naïve café\n", map[string]any{"old_string": "café", "new_string": "tea"},
			want{output: "replaced 1 occurrence in f.txt (at line 1)"}, "naïve tea\n"},
		{"non-overlapping count", "aaaa", map[string]any{"old_string": "aa", "new_string": "b", "replace_all": true},
			want{output: "replaced 2 occurrences in f.txt (at line 1)"}, "bb"},

		{"ambiguous", code, map[string]any{"old_string": "return 1", "new_string": "return 2"},
			want{code: fs.CodeAmbiguous, contains: []string{"occurs 2 times", "lines 2 and 6", "replace_all"}}, ""},
		{"many", strings.Repeat("x\n", 15), map[string]any{"old_string": "x", "new_string": "y"},
			want{code: fs.CodeAmbiguous, contains: []string{"occurs 15 times", "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 5 more"}}, ""},
		{"not found", code, map[string]any{"old_string": "return 9", "new_string": "x"},
			want{code: fs.CodeNoMatch, contains: []string{"not found in f.txt", "read it again"}}, ""},
		{"whitespace differs", code, map[string]any{"old_string": "func b() {\n    return 1\n}", "new_string": "x"},
			want{code: fs.CodeNoMatch, contains: []string{"matches at line 5 when whitespace is ignored", "indentation"}}, ""},
		{"crlf file", "a\r\nb\r\n", map[string]any{"old_string": "a\nb", "new_string": "x"},
			want{code: fs.CodeNoMatch, contains: []string{"Windows line endings"}}, ""},
		{"same strings", code, map[string]any{"old_string": "a", "new_string": "a"},
			want{code: tool.CodeInvalidArguments, contains: []string{"the same"}}, ""},
		{"empty old", code, map[string]any{"old_string": "", "new_string": "a"},
			want{code: tool.CodeInvalidArguments, contains: []string{"write_file"}}, ""},
		{"binary", "a\x00b", map[string]any{"old_string": "a", "new_string": "c"},
			want{code: fs.CodeBinary}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			writeFile(t, f.path("f.txt"), tt.file)
			args := map[string]any{"path": "f.txt"}
			for k, v := range tt.args {
				args[k] = v
			}
			check(t, f.call(t, "edit_file", args), tt.want)
			want := tt.content
			if want == "" {
				want = tt.file
			}
			if got := readFile(t, f.path("f.txt")); got != want {
				t.Errorf("f.txt holds %q, want %q", got, want)
			}
			assertNoTempFiles(t, f.ws)
		})
	}
}

func TestEditFileTargets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, f.path("private.txt"), "secret=1\n")
	if err := os.Chmod(f.path("private.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	mkdir(t, f.path("dir"))
	if err := syscall.Mkfifo(f.path("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args string
		want want
	}{
		{"keeps the mode", `{"path":"private.txt","old_string":"1","new_string":"2"}`, want{output: "replaced 1 occurrence in private.txt (at line 1)"}},
		{"missing", `{"path":"nope.txt","old_string":"a","new_string":"b"}`, want{code: fs.CodeNotFound, contains: []string{"write_file creates"}}},
		{"directory", `{"path":"dir","old_string":"a","new_string":"b"}`, want{code: fs.CodeIsDirectory}},
		{"root", `{"path":".","old_string":"a","new_string":"b"}`, want{code: fs.CodeIsDirectory}},
		{"named pipe", `{"path":"fifo","old_string":"a","new_string":"b"}`, want{code: fs.CodeNotRegular}},
		{"outside", `{"path":"../outside/secret.txt","old_string":"sentinel","new_string":"b"}`, want{code: fs.CodeOutside}},
		{"missing new_string", `{"path":"private.txt","old_string":"a"}`, want{code: tool.CodeInvalidArguments}},
		{"replace_all not a bool", `{"path":"private.txt","old_string":"a","new_string":"b","replace_all":"yes"}`, want{code: tool.CodeInvalidArguments}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, f.call(t, "edit_file", tt.args), tt.want)
		})
	}
	if fi, err := os.Stat(f.path("private.txt")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after edit: %v %v", fi.Mode(), err)
	}
}
