// These tests use Unix symlinks, named pipes, /etc and /proc.

//go:build unix

package fs_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"steward/backend/tool"
	"steward/backend/tools/fs"
)

func TestListDir(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, f.path("b.txt"), "12345")
	writeFile(t, f.path("a.go"), "package a\n")
	writeFile(t, f.path(".hidden"), "")
	writeFile(t, f.path("src/main.go"), "x")
	mkdir(t, f.path("empty"))
	mkdir(t, f.path("Zdir"))
	symlink(t, "src", f.path("link"))
	symlink(t, "../outside", f.path("out"))
	writeFile(t, f.path("odd/new\nline.txt"), "")
	if err := syscall.Mkfifo(f.path("odd/pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range fs.MaxListEntries + 100 {
		writeFile(t, f.path(fmt.Sprintf("many/f%04d", i)), "")
	}

	rootListing := "./ (10 entries)\n" +
		".hidden (0 bytes)\n" +
		"Zdir/\n" +
		"a.go (10 bytes)\n" +
		"b.txt (5 bytes)\n" +
		"empty/\n" +
		"link -> src\n" +
		"many/\n" +
		"odd/\n" +
		"out -> ../outside\n" +
		"src/\n"

	var many strings.Builder
	fmt.Fprintf(&many, "many/ (%d entries)\n", fs.MaxListEntries+100)
	for i := range fs.MaxListEntries {
		fmt.Fprintf(&many, "f%04d (0 bytes)\n", i)
	}
	many.WriteString("… 100 more entries not shown (list_dir shows the first 500)\n")

	tests := []struct {
		name string
		args string
		want want
	}{
		{"root", `{"path":"."}`, want{output: rootListing}},
		{"path omitted", `{}`, want{output: rootListing}},
		{"empty path", `{"path":""}`, want{output: rootListing}},
		{"subdir", `{"path":"src"}`, want{output: "src/ (1 entry)\nmain.go (1 byte)\n"}},
		{"trailing slash", `{"path":"src/"}`, want{output: "src/ (1 entry)\nmain.go (1 byte)\n"}},
		{"symlink to a dir inside", `{"path":"link"}`, want{output: "src/ (1 entry)\nmain.go (1 byte)\n"}},
		{"empty dir", `{"path":"empty"}`, want{output: "empty/ is empty"}},
		{"odd names", `{"path":"odd"}`, want{output: "odd/ (2 entries)\n\"new\\nline.txt\" (0 bytes)\npipe (named pipe)\n"}},
		{"capped", `{"path":"many"}`, want{output: many.String()}},

		{"file", `{"path":"b.txt"}`, want{code: fs.CodeNotDirectory, contains: []string{"b.txt is a file", "read_file"}}},
		{"not found", `{"path":"nope"}`, want{code: fs.CodeNotFound, contains: []string{"nope does not exist"}}},
		{"outside", `{"path":".."}`, want{code: fs.CodeOutside, contains: []string{"path .. resolves outside the workspace"}}},
		{"symlink outside", `{"path":"out"}`, want{code: fs.CodeOutside, contains: []string{"out is a symlink to ../outside"}}},
		{"absolute outside", `{"path":"/etc"}`, want{code: fs.CodeOutside}},
		{"extra field", `{"path":".","recursive":true}`, want{code: tool.CodeInvalidArguments}},
		{"path not a string", `{"path":["a"]}`, want{code: tool.CodeInvalidArguments}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			check(t, f.call(t, "list_dir", tt.args), tt.want)
		})
	}
}
