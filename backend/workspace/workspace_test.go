// These tests use Unix symlinks, named pipes, /etc and /proc.

//go:build unix

package workspace_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/workspace"
)

// fixture is a workspace next to a sentinel directory that no path given to
// the workspace may touch.
type fixture struct {
	base    string // holds ws and outside, nothing else
	ws      *workspace.Root
	outside string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	// EvalSymlinks: on some systems the temp dir itself is behind a symlink.
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, outside, filepath.Join(dir, "sub"), filepath.Join(outside, "deep")} {
		mkdir(t, d)
	}
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret")
	writeFile(t, filepath.Join(outside, "deep", "more.txt"), "more")
	writeFile(t, filepath.Join(dir, "file.txt"), "inside")
	writeFile(t, filepath.Join(dir, "sub", "file.txt"), "inside sub")

	links := map[string]string{
		"etc_link":     "/etc",
		"passwd_link":  "/etc/passwd",
		"proc_root":    "/proc/self/root",
		"out_dir":      "../outside",
		"out_abs":      outside,
		"out_file":     "../outside/secret.txt",
		"dangling_out": "../outside/new.txt",
		"chain1":       "chain2",
		"chain2":       "chain3",
		"chain3":       "../outside",
		"loop":         "loop",
		"loop_a":       "loop_b",
		"loop_b":       "loop_a",
		"sub/up":       "../../outside",
		"inside_back":  "../ws/file.txt",
		"in_link":      "sub",
		"abs_in_link":  filepath.Join(dir, "sub"),
		"dangling_in":  "sub/new.txt",
		"in_chain":     "in_link",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{base: base, ws: ws, outside: outside}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot records every entry beneath dir: type, mode, size, content hash
// and modification time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		s := fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out[p] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeThrough writes as a careless caller would: Resolve, then plain
// os calls on the result, so that only Resolve stands between the path and
// the sentinel. A result outside the test's temp dir is reported and not
// written, so that a bug cannot damage the machine running the test.
func writeThrough(t *testing.T, f fixture, p string) (string, error) {
	t.Helper()
	abs, err := f.ws.Resolve(p)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(abs, f.base+"/") {
		t.Errorf("Resolve(%q) = %q, outside the test directory; not written", p, abs)
		return "", nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		if err := os.WriteFile(abs, []byte("written"), 0o644); err != nil {
			return "", err
		}
	}
	return f.ws.Rel(abs)
}

// rawCreate tries the unresolved path directly on the *os.Root with O_EXCL,
// which never replaces an existing file: the second, kernel-level layer.
func rawCreate(f fixture, p string) {
	root, err := f.ws.OpenRoot()
	if err != nil {
		return
	}
	defer root.Close()
	if fh, err := root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
		fh.Close()
	}
}

func TestResolveRefusesEscapes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ws := f.ws.Path()
	longName := strings.Repeat("a", 256)
	longPath := strings.Repeat("abcdefg/", 513) // 4104 bytes of short names

	tests := []struct {
		name string
		path string
		want error
		msg  string // substring of the message, when it matters
	}{
		{"dotdot", "..", workspace.ErrOutside, "path .. resolves outside the workspace"},
		{"dotdot twice", "../..", workspace.ErrOutside, ""},
		{"dotdot to sentinel", "../outside/secret.txt", workspace.ErrOutside, ""},
		{"down then further up", "a/../../x", workspace.ErrOutside, "path a/../../x resolves outside the workspace"},
		{"existing dir then up", "sub/../../outside", workspace.ErrOutside, ""},
		{"dot then up", "./../outside", workspace.ErrOutside, ""},
		{"deep up to etc", "sub/../../../etc/passwd", workspace.ErrOutside, ""},
		{"up and back in", "../ws/file.txt", workspace.ErrOutside, ""},
		{"tilde is not home", "~/../../outside/new.txt", workspace.ErrOutside, ""},
		{"missing then up", "new/../../outside/new.txt", workspace.ErrOutside, ""},
		{"absolute etc passwd", "/etc/passwd", workspace.ErrOutside, "give a path relative to the workspace root"},
		{"absolute slash", "/", workspace.ErrOutside, ""},
		{"absolute sentinel", filepath.Join(f.outside, "secret.txt"), workspace.ErrOutside, ""},
		{"absolute sentinel new", filepath.Join(f.outside, "new.txt"), workspace.ErrOutside, ""},
		{"absolute inside then up", ws + "/../outside/secret.txt", workspace.ErrOutside, ""},
		{"absolute prefix lookalike", ws + "x/file.txt", workspace.ErrOutside, ""},
		{"proc self root", "/proc/self/root/etc/passwd", workspace.ErrOutside, ""},
		{"proc self root into ws", "/proc/self/root" + ws + "/file.txt", workspace.ErrOutside, ""},
		{"proc self cwd", "/proc/self/cwd/x", workspace.ErrOutside, ""},
		{"symlink to proc root", "proc_root/etc/passwd", workspace.ErrOutside, "proc_root is a symlink to /proc/self/root"},
		{"symlink file to etc passwd", "passwd_link", workspace.ErrOutside, "passwd_link is a symlink to /etc/passwd"},
		{"symlinked dir to etc", "etc_link/passwd", workspace.ErrOutside, ""},
		{"symlinked parent relative", "out_dir/secret.txt", workspace.ErrOutside, ""},
		{"symlinked parent new file", "out_dir/new.txt", workspace.ErrOutside, ""},
		{"symlinked parent new dirs", "out_dir/x/y/z.txt", workspace.ErrOutside, ""},
		{"symlinked parent absolute", "out_abs/deep/more.txt", workspace.ErrOutside, ""},
		{"symlink file relative", "out_file", workspace.ErrOutside, ""},
		{"dangling symlink outside", "dangling_out", workspace.ErrOutside, ""},
		{"symlink chain", "chain1/secret.txt", workspace.ErrOutside, "chain3 is a symlink to ../outside"},
		{"symlink in subdir", "sub/up/secret.txt", workspace.ErrOutside, "sub/up is a symlink"},
		{"symlink out and back in", "inside_back", workspace.ErrOutside, ""},
		{"symlink then dotdot", "in_link/../../outside", workspace.ErrOutside, ""},
		{"symlink loop", "loop", workspace.ErrInvalidPath, "symlinks"},
		{"symlink loop pair", "loop_a/x", workspace.ErrInvalidPath, "symlinks"},
		{"empty", "", workspace.ErrInvalidPath, "path is empty"},
		{"newline", "a\nb.txt", workspace.ErrInvalidPath, `"a\nb.txt"`},
		{"newline escape", "x\n/../../outside/new.txt", workspace.ErrInvalidPath, ""},
		{"NUL", "file.txt\x00../../outside", workspace.ErrInvalidPath, "NUL"},
		{"tab", "a\tb", workspace.ErrInvalidPath, ""},
		{"carriage return", "a\rb", workspace.ErrInvalidPath, ""},
		{"escape sequence", "a\x1b[31mred", workspace.ErrInvalidPath, ""},
		{"DEL", "a\x7f", workspace.ErrInvalidPath, ""},
		{"C1 control", "a\u0085b", workspace.ErrInvalidPath, ""},
		{"bidi override", "evil\u202Etxt.exe", workspace.ErrInvalidPath, ""},
		{"line separator", "a\u2028b", workspace.ErrInvalidPath, ""},
		{"invalid UTF-8", "a\xff\xfe", workspace.ErrInvalidPath, "UTF-8"},
		{"name of 256 bytes", longName, workspace.ErrInvalidPath, "256 bytes"},
		{"long name under dir", "sub/" + longName + "/x", workspace.ErrInvalidPath, ""},
		{"path over 4096 bytes", longPath, workspace.ErrInvalidPath, "4096"},
		{"file used as dir", "file.txt/x", workspace.ErrInvalidPath, "file.txt, which is a file"},
	}
	if len(tests) < 30 {
		t.Fatalf("only %d escape cases", len(tests))
	}

	before := snapshot(t, f.outside)
	passwd, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Write first, so that a path Resolve wrongly accepts is tried
			// against the sentinel before the test reports it.
			rawCreate(f, tt.path)
			if _, err := writeThrough(t, f, tt.path); err == nil {
				t.Errorf("write through %q succeeded", tt.path)
			}
			got, err := f.ws.Resolve(tt.path)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Resolve(%q) = %q, %v; want error %v", tt.path, got, err, tt.want)
			}
			if got != "" {
				t.Errorf("Resolve(%q) returned %q with its error", tt.path, got)
			}
			if tt.msg != "" && !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Resolve(%q) error %q does not contain %q", tt.path, err, tt.msg)
			}
			if strings.ContainsAny(err.Error(), "\n\x00") {
				t.Errorf("error message %q has a control character", err)
			}
		})
	}

	if diff := cmp.Diff(before, snapshot(t, f.outside)); diff != "" {
		t.Errorf("outside directory changed (-before +after):\n%s", diff)
	}
	entries, err := os.ReadDir(f.base)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"outside", "ws"}, names); diff != "" {
		t.Errorf("entries next to the workspace (-want +got):\n%s", diff)
	}
	after, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(passwd) {
		t.Error("/etc/passwd changed")
	}
	for _, name := range []string{"/etc/x", "/etc/new.txt"} {
		if _, err := os.Lstat(name); err == nil {
			t.Errorf("%s exists", name)
		}
	}
}

func TestResolveAllows(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ws := f.ws.Path()
	name255 := strings.Repeat("é", 127) + "x" // 255 bytes

	tests := []struct {
		name string
		path string
		want string // relative to the root
	}{
		{"file", "file.txt", "file.txt"},
		{"root", ".", "."},
		{"root slash", "./", "."},
		{"dots and slashes", "./sub/./file.txt", "sub/file.txt"},
		{"double slash", "sub//file.txt", "sub/file.txt"},
		{"trailing slash", "sub/", "sub"},
		{"down and up", "sub/../file.txt", "file.txt"},
		{"missing then up", "a/../file.txt", "file.txt"},
		{"absolute inside", ws + "/sub/file.txt", "sub/file.txt"},
		{"absolute root", ws, "."},
		{"new file", "new.txt", "new.txt"},
		{"new dirs", "new/deep/dir/file.txt", "new/deep/dir/file.txt"},
		{"symlink inside", "in_link/file.txt", "sub/file.txt"},
		{"absolute symlink inside", "abs_in_link/file.txt", "sub/file.txt"},
		{"symlink chain inside", "in_chain/file.txt", "sub/file.txt"},
		{"symlink then up inside", "in_link/../file.txt", "file.txt"},
		{"dangling symlink inside", "dangling_in", "sub/new.txt"},
		{"tilde dir", "~/notes.txt", "~/notes.txt"}, // before "~" is written as a file
		{"tilde", "~", "~"},
		{"tilde user", "~user/x", "~user/x"},
		{"three dots", "...", "..."},
		{"dots prefix", "..foo", "..foo"},
		{"dots suffix", "foo..", "foo.."},
		{"hidden", ".hidden", ".hidden"},
		{"dash", "-rf", "-rf"},
		{"url encoded dots", "%2e%2e/secret.txt", "%2e%2e/secret.txt"},
		{"backslash", `..\outside`, `..\outside`},
		{"spaces", "name with spaces.txt", "name with spaces.txt"},
		{"accents", "héllo wörld.txt", "héllo wörld.txt"},
		{"cjk", "日本語/ファイル.txt", "日本語/ファイル.txt"},
		{"emoji", "emoji 🎉.md", "emoji 🎉.md"},
		{"name of 255 bytes", name255, name255},
	}
	before := snapshot(t, f.outside)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.ws.Resolve(tt.path)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.path, err)
			}
			want := filepath.Join(ws, tt.want)
			if got != want {
				t.Fatalf("Resolve(%q) = %q, want %q", tt.path, got, want)
			}
			rel, err := writeThrough(t, f, tt.path)
			if err != nil {
				t.Fatalf("write through %q: %v", tt.path, err)
			}
			if rel != tt.want {
				t.Errorf("wrote %q, want %q", rel, tt.want)
			}
		})
	}
	if diff := cmp.Diff(before, snapshot(t, f.outside)); diff != "" {
		t.Errorf("outside directory changed (-before +after):\n%s", diff)
	}
}

// TestOpenRootClosesTheRace swaps a checked directory for a symlink to the
// outside between Resolve and the write: the *os.Root refuses to follow it.
func TestOpenRootClosesTheRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	abs, err := f.ws.Resolve("sub/file.txt")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := f.ws.Rel(abs)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(f.ws.Path(), "sub")
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside", sub); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, f.outside)
	root, err := f.ws.OpenRoot()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := root.WriteFile(rel, []byte("x"), 0o644); err == nil {
		t.Fatal("write through a swapped symlink succeeded")
	}
	if diff := cmp.Diff(before, snapshot(t, f.outside)); diff != "" {
		t.Errorf("outside directory changed (-before +after):\n%s", diff)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "ws")
	mkdir(t, dir)
	writeFile(t, filepath.Join(dir, "f.txt"), "x")
	link := filepath.Join(base, "link")
	if err := os.Symlink("ws", link); err != nil {
		t.Fatal(err)
	}

	t.Run("symlinked root is resolved", func(t *testing.T) {
		ws, err := workspace.Open(link)
		if err != nil {
			t.Fatal(err)
		}
		if ws.Path() != dir {
			t.Errorf("Path() = %q, want %q", ws.Path(), dir)
		}
		// A model may quote the root as it was configured.
		got, err := ws.Resolve(link + "/f.txt")
		if err != nil || got != filepath.Join(dir, "f.txt") {
			t.Errorf("Resolve through the configured path = %q, %v", got, err)
		}
	})
	t.Run("relative dir becomes absolute", func(t *testing.T) {
		ws, err := workspace.Open(".")
		if err != nil {
			t.Fatal(err)
		}
		if !filepath.IsAbs(ws.Path()) {
			t.Errorf("Path() = %q, not absolute", ws.Path())
		}
	})
	tests := []struct {
		name, dir, msg string
		is             error
	}{
		{"missing", filepath.Join(base, "nope"), "workspace " + filepath.Join(base, "nope") + " does not exist", fs.ErrNotExist},
		{"file", filepath.Join(dir, "f.txt"), "workspace " + filepath.Join(dir, "f.txt") + " is not a directory", nil},
		{"empty", "", "workspace path is empty", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workspace.Open(tt.dir)
			if err == nil || err.Error() != tt.msg {
				t.Fatalf("Open(%q) error = %v, want %q", tt.dir, err, tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Open(%q) error is not %v", tt.dir, tt.is)
			}
		})
	}
}

func TestRel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ws := f.ws.Path()
	tests := []struct {
		abs, want string
		err       error
	}{
		{ws, ".", nil},
		{ws + "/sub/file.txt", "sub/file.txt", nil},
		{ws + "x/file.txt", "", workspace.ErrOutside},
		{f.outside, "", workspace.ErrOutside},
	}
	for _, tt := range tests {
		got, err := f.ws.Rel(tt.abs)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("Rel(%q) = %q, %v; want %q, %v", tt.abs, got, err, tt.want, tt.err)
		}
	}
}

func TestSpelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	root := f.ws.Path()
	for _, tt := range []struct {
		in   string
		want string
		ok   bool
	}{
		{".env", ".env", true},
		{"./a/../.env", ".env", true},
		{"a/b/../c", "a/c", true},
		{"", "", false},
		{".", ".", true},
		{"a/..", ".", true},
		{root + "/x/y", "x/y", true},
		{root, ".", true},
		{"..", "", false},
		{"a/../../x", "", false},
		{"/etc/passwd", "", false},
		{"a\nb", "", false},
	} {
		got, ok := f.ws.Spelled(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Spelled(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
