// These tests use Unix symlinks, named pipes, /etc and /proc.

//go:build unix

package fs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"steward/backend/tool"
	"steward/backend/tools/fs"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, f.path("old.txt"), "old content\n")
	writeFile(t, f.path("private.txt"), "old")
	if err := os.Chmod(f.path("private.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.path("target.txt"), "target")
	symlink(t, "target.txt", f.path("link.txt"))
	symlink(t, "nothing-yet.txt", f.path("dangling.txt"))
	mkdir(t, f.path("dir"))

	tests := []struct {
		name    string
		args    any
		want    want
		file    string // relative to the workspace, read after the call
		content string
	}{
		{"create", `{"path":"new.txt","content":"hello"}`, want{output: "wrote 5 bytes to new.txt (created)"}, "new.txt", "hello"},
		{"create with parents", `{"path":"a/b/c.txt","content":"deep"}`, want{output: "wrote 4 bytes to a/b/c.txt (created, with its missing parent directories)"}, "a/b/c.txt", "deep"},
		{"create in existing dir", `{"path":"dir/x.txt","content":""}`, want{output: "wrote 0 bytes to dir/x.txt (created)"}, "dir/x.txt", ""},
		{"replace", `{"path":"old.txt","content":"new"}`, want{output: "wrote 3 bytes to old.txt (replaced the previous content)"}, "old.txt", "new"},
		{"absolute inside", map[string]any{"path": f.path("abs.txt"), "content": "x"}, want{output: "wrote 1 byte to abs.txt (created)"}, "abs.txt", "x"},
		{"unicode", `{"path":"日本/ファイル.txt","content":"é🎉"}`, want{output: "wrote 6 bytes to 日本/ファイル.txt (created, with its missing parent directories)"}, "日本/ファイル.txt", "é🎉"},
		{"through a symlink inside", `{"path":"link.txt","content":"via link"}`, want{output: "wrote 8 bytes to target.txt (replaced the previous content)"}, "target.txt", "via link"},
		{"dangling symlink inside", `{"path":"dangling.txt","content":"made"}`, want{output: "wrote 4 bytes to nothing-yet.txt (created)"}, "nothing-yet.txt", "made"},
		{"new dir then up", `{"path":"tmpdir/../up.txt","content":"u"}`, want{output: "wrote 1 byte to up.txt (created)"}, "up.txt", "u"},

		{"directory", `{"path":"dir","content":"x"}`, want{code: fs.CodeIsDirectory, contains: []string{"dir is a directory"}}, "", ""},
		{"root", `{"path":".","content":"x"}`, want{code: fs.CodeIsDirectory}, "", ""},
		{"parent is a file", `{"path":"old.txt/x","content":"x"}`, want{code: fs.CodeInvalidPath, contains: []string{"old.txt, which is a file"}}, "", ""},
		{"outside", `{"path":"../outside/new.txt","content":"x"}`, want{code: fs.CodeOutside}, "", ""},
		{"empty path", `{"path":"","content":"x"}`, want{code: fs.CodeInvalidPath}, "", ""},
		{"missing content", `{"path":"m.txt"}`, want{code: tool.CodeInvalidArguments, contains: []string{"content"}}, "", ""},
		{"missing path", `{"content":"x"}`, want{code: tool.CodeInvalidArguments, contains: []string{"path"}}, "", ""},
		{"extra field", `{"path":"e.txt","content":"x","mode":"0777"}`, want{code: tool.CodeInvalidArguments}, "", ""},
		{"content not a string", `{"path":"n.txt","content":42}`, want{code: tool.CodeInvalidArguments}, "", ""},
		{"null arguments", `null`, want{code: tool.CodeInvalidArguments}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: cases share files (link.txt replaces target.txt).
			check(t, f.call(t, "write_file", tt.args), tt.want)
			if tt.file != "" {
				if got := readFile(t, f.path(tt.file)); got != tt.content {
					t.Errorf("%s holds %q, want %q", tt.file, got, tt.content)
				}
			}
		})
	}

	t.Run("afterwards", func(t *testing.T) {
		fi, err := os.Stat(f.path("private.txt"))
		if err != nil {
			t.Fatal(err)
		}
		check(t, f.call(t, "write_file", `{"path":"private.txt","content":"new"}`), want{output: "wrote 3 bytes to private.txt (replaced the previous content)"})
		if after, err := os.Stat(f.path("private.txt")); err != nil || after.Mode() != fi.Mode() {
			t.Errorf("mode after replace = %v (%v), want %v", after.Mode(), err, fi.Mode())
		}
		if fi, err := os.Lstat(f.path("link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("link.txt is no longer a symlink: %v %v", fi.Mode(), err)
		}
		for _, name := range []string{"m.txt", "e.txt", "n.txt", "tmpdir"} {
			if _, err := os.Lstat(f.path(name)); !os.IsNotExist(err) {
				t.Errorf("%s exists after a failed call", name)
			}
		}
		assertNoTempFiles(t, f.ws)
	})
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(filepath.Base(p), ".steward-") {
			t.Errorf("temp file left behind: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriteFileIsAtomic reads a file while it is being replaced: every read
// sees one whole version.
func TestWriteFileIsAtomic(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	versions := []string{strings.Repeat("a", 100<<10), strings.Repeat("b", 150<<10)}
	writeFile(t, f.path("flip.txt"), versions[0])

	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for i := range 50 {
			args, _ := json.Marshal(map[string]string{"path": "flip.txt", "content": versions[i%2]})
			res, err := f.reg.Call(context.Background(), f.env, "write_file", args)
			if err != nil || res.IsError {
				t.Errorf("write: %v %s", err, res.Output)
				return
			}
		}
	})
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			got, err := os.ReadFile(f.path("flip.txt"))
			if err != nil {
				t.Errorf("read while replacing: %v", err)
				return
			}
			if string(got) != versions[0] && string(got) != versions[1] {
				t.Errorf("read a mixed or partial file of %d bytes", len(got))
				return
			}
		}
	})
	wg.Wait()
	assertNoTempFiles(t, f.ws)
}

func TestWriteThenRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.reg.MaxOutput = 1 << 20 // the 200 KiB case is over the registry's default cap
	tests := []struct{ name, path, content string }{
		{"plain", "plain.txt", "hello\nworld\n"},
		{"no trailing newline", "nonl.txt", "last line"},
		{"crlf", "crlf.txt", "a\r\nb\r\n"},
		{"unicode", "ü/名前.md", "# Überschrift\n日本語 🎉\n"},
		{"tabs and quotes", "code.go", "func main() {\n\tfmt.Println(\"hi\\n\")\n}\n"},
		{"large", "big/large.txt", strings.Repeat("0123456789abcdef\n", 12000)},
		{"replaced", "plain.txt", "second version\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if res := f.call(t, "write_file", map[string]any{"path": tt.path, "content": tt.content}); res.IsError {
				t.Fatalf("write: %s", res.Output)
			}
			check(t, f.call(t, "read_file", map[string]any{"path": tt.path}), want{output: tt.content})
		})
	}
}
