// These tests use Unix symlinks, named pipes, /etc and /proc.

//go:build unix

package fs_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"steward/backend/tool"
	"steward/backend/tools/fs"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	five := "l1\nl2\nl3\nl4\nl5\n"
	writeFile(t, f.path("a.txt"), five)
	writeFile(t, f.path("nonl.txt"), "one\ntwo")
	writeFile(t, f.path("empty.txt"), "")
	writeFile(t, f.path("sub/deep.txt"), "deep\n")
	writeFile(t, f.path("bin.dat"), "text\x00more")
	writeFile(t, f.path("latin1.txt"), "caf\xe9\n")
	writeFile(t, f.path("crlf.txt"), "a\r\nb\r\n")
	line := strings.Repeat("x", 99) + "\n" // 100 bytes
	big := strings.Repeat(line, 3000)      // 300,000 bytes, over the cap
	writeFile(t, f.path("big.txt"), big)
	writeFile(t, f.path("longline.txt"), "short\n"+strings.Repeat("y", fs.MaxReadBytes+1)+"\n")
	symlink(t, "a.txt", f.path("link.txt"))
	symlink(t, "/etc/passwd", f.path("passwd"))
	symlink(t, "../outside/secret.txt", f.path("secret"))
	if err := syscall.Mkfifo(f.path("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}

	// What fits the cap but not the registry's output limit: compare with
	// the file, and leave the registry's cut to its own tests.
	f.reg.MaxOutput = 1 << 20

	tests := []struct {
		name string
		args any
		want want
	}{
		{"whole file", `{"path":"a.txt"}`, want{output: five}},
		{"dot slash", `{"path":"./a.txt"}`, want{output: five}},
		{"absolute inside", map[string]any{"path": f.path("a.txt")}, want{output: five}},
		{"nested", `{"path":"sub/deep.txt"}`, want{output: "deep\n"}},
		{"symlink inside", `{"path":"link.txt"}`, want{output: five}},
		{"crlf kept", `{"path":"crlf.txt"}`, want{output: "a\r\nb\r\n"}},
		{"range", `{"path":"a.txt","start_line":2,"end_line":3}`, want{output: "a.txt (lines 2-3 of 5)\nl2\nl3\n"}},
		{"one line", `{"path":"a.txt","start_line":5,"end_line":5}`, want{output: "a.txt (lines 5-5 of 5)\nl5\n"}},
		{"start only", `{"path":"a.txt","start_line":4}`, want{output: "a.txt (lines 4-5 of 5)\nl4\nl5\n"}},
		{"end only", `{"path":"a.txt","end_line":2}`, want{output: "a.txt (lines 1-2 of 5)\nl1\nl2\n"}},
		{"end past the end", `{"path":"a.txt","start_line":4,"end_line":99}`, want{output: "a.txt (lines 4-5 of 5)\nl4\nl5\n"}},
		{"last line without newline", `{"path":"nonl.txt","start_line":2}`, want{output: "nonl.txt (lines 2-2 of 2)\ntwo"}},
		{"empty", `{"path":"empty.txt"}`, want{output: "empty.txt is empty"}},
		{"range of a big file", `{"path":"big.txt","start_line":2999}`, want{output: "big.txt (lines 2999-3000 of 3000)\n" + line + line}},
		{"range over the cap", `{"path":"big.txt","start_line":1,"end_line":3000}`, want{output: "big.txt (lines 1-2621 of 3000; the rest of the range is over 256 KiB, continue with start_line 2622)\n" + strings.Repeat(line, 2621)}},
		{"invalid UTF-8", `{"path":"latin1.txt"}`, want{output: "(latin1.txt is not valid UTF-8; invalid bytes are shown as U+FFFD)\ncaf\uFFFD\n"}},

		{"too large", `{"path":"big.txt"}`, want{code: fs.CodeTooLarge, contains: []string{"300000 bytes in 3000 lines", "start_line 1 and end_line 1966"}}},
		{"one line over the cap", `{"path":"longline.txt","start_line":2,"end_line":2}`, want{code: fs.CodeTooLarge, contains: []string{"line 2 of longline.txt alone"}}},
		{"start past the end", `{"path":"a.txt","start_line":6}`, want{code: tool.CodeInvalidArguments, contains: []string{"a.txt has 5 lines"}}},
		{"end before start", `{"path":"a.txt","start_line":3,"end_line":2}`, want{code: tool.CodeInvalidArguments, contains: []string{"end_line 2 is before start_line 3"}}},
		{"negative", `{"path":"a.txt","start_line":-1}`, want{code: tool.CodeInvalidArguments}},
		{"not found", `{"path":"nope/missing.txt"}`, want{code: fs.CodeNotFound, contains: []string{"nope/missing.txt does not exist", "list_dir"}}},
		{"directory", `{"path":"sub"}`, want{code: fs.CodeIsDirectory, contains: []string{"list_dir"}}},
		{"binary", `{"path":"bin.dat"}`, want{code: fs.CodeBinary, contains: []string{"bin.dat", "binary"}}},
		{"named pipe", `{"path":"fifo"}`, want{code: fs.CodeNotRegular, contains: []string{"named pipe"}}},
		{"empty path", `{"path":""}`, want{code: fs.CodeInvalidPath, contains: []string{"path is empty"}}},
		{"newline in path", `{"path":"a\n.txt"}`, want{code: fs.CodeInvalidPath}},
		{"outside", `{"path":"../outside/secret.txt"}`, want{code: fs.CodeOutside, contains: []string{"../outside/secret.txt resolves outside the workspace"}}},
		{"symlink to etc passwd", `{"path":"passwd"}`, want{code: fs.CodeOutside, contains: []string{"passwd is a symlink to /etc/passwd"}}},
		{"symlink to sentinel", `{"path":"secret"}`, want{code: fs.CodeOutside}},
		{"absolute outside", `{"path":"/etc/passwd"}`, want{code: fs.CodeOutside}},

		{"missing path", `{}`, want{code: tool.CodeInvalidArguments, contains: []string{"path"}}},
		{"extra field", `{"path":"a.txt","offset":3}`, want{code: tool.CodeInvalidArguments}},
		{"misspelled field", `{"path":"a.txt","startLine":3}`, want{code: tool.CodeInvalidArguments}},
		{"string line", `{"path":"a.txt","start_line":"2"}`, want{code: tool.CodeInvalidArguments}},
		{"fractional line", `{"path":"a.txt","start_line":1.5}`, want{code: tool.CodeInvalidArguments}},
		{"path not a string", `{"path":7}`, want{code: tool.CodeInvalidArguments}},
		{"not JSON", `{"path":`, want{code: tool.CodeInvalidArguments}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := f.call(t, "read_file", tt.args)
			check(t, got, tt.want)
			if got.IsError && strings.Contains(got.Output, f.ws) {
				t.Errorf("message %q shows the workspace's absolute path", got.Output)
			}
		})
	}
}

// TestReadFileRegistryWhole checks that the registry's output cap sits above
// read_file's own: a 200 KiB file read whole reaches the model whole.
func TestReadFileRegistryWhole(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	content := strings.Repeat("z", 200<<10)
	writeFile(t, f.path("mid.txt"), content)
	got := f.call(t, "read_file", `{"path":"mid.txt"}`)
	if got.IsError || got.Output != content {
		t.Errorf("200 KiB read through the default registry: %d bytes (error %v), want the file whole", len(got.Output), got.IsError)
	}
}

func TestReadFileLineCounts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		content string
		lines   int
	}{
		{"x", 1},
		{"x\n", 1},
		{"\n", 1},
		{"\n\n", 2},
		{"a\nb", 2},
		{strings.Repeat("a\n", 70000), 70000}, // lines across read buffers
	}
	for i, tt := range tests {
		name := fmt.Sprintf("f%d.txt", i)
		writeFile(t, filepath.Join(f.ws, name), tt.content)
		got := f.call(t, "read_file", fmt.Sprintf(`{"path":%q,"start_line":1,"end_line":1}`, name))
		if got.IsError {
			t.Fatalf("%q: %s", tt.content, got.Output)
		}
		header, _, _ := strings.Cut(got.Output, "\n")
		if want := fmt.Sprintf("%s (lines 1-1 of %d)", name, tt.lines); header != want {
			t.Errorf("%q: header %q, want %q", tt.content[:min(len(tt.content), 10)], header, want)
		}
	}
}
