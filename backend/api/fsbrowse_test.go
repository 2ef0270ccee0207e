package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/api"
)

// dirsPath is the URL of GET /api/v1/fs/dirs for path p.
func dirsPath(p string) string { return "/api/v1/fs/dirs?" + url.Values{"path": {p}}.Encode() }

func (e *env) dirs(p string) api.DirList {
	e.t.Helper()
	var l api.DirList
	e.call("GET", dirsPath(p), nil, http.StatusOK, &l)
	return l
}

func mkdirs(t *testing.T, root string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.MkdirAll(filepath.Join(root, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestListDirs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home, homeErr := os.UserHomeDir()

	root := t.TempDir()
	mkdirs(t, root, "beta", "Alpha", "zeta/inner", ".Cache", ".apple", "_under")
	if err := os.WriteFile(filepath.Join(root, "gamma.txt"), []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"link-to-beta": filepath.Join(root, "beta"),
		"dangling":     filepath.Join(root, "nowhere"),
		"link-to-file": filepath.Join(root, "gamma.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(name string) api.DirEntry { return api.DirEntry{Name: name, Path: filepath.Join(root, name)} }
	link := entry("link-to-beta")
	link.Link = true

	t.Run("folders and links to folders, hidden last", func(t *testing.T) {
		got := e.with(t).dirs(root)
		want := api.DirList{
			Path: root, Parent: filepath.Dir(root), Home: home,
			Dirs: []api.DirEntry{entry("_under"), entry("Alpha"), entry("beta"), link, entry("zeta"), entry(".apple"), entry(".Cache")},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("listing (-want +got):\n%s", diff)
		}
	})

	t.Run("path is cleaned", func(t *testing.T) {
		got := e.with(t).dirs(root + "/zeta/../beta/")
		want := api.DirList{Path: filepath.Join(root, "beta"), Parent: root, Dirs: []api.DirEntry{}, Home: home}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("listing (-want +got):\n%s", diff)
		}
	})

	t.Run("a link is entered like a folder", func(t *testing.T) {
		if got := e.with(t).dirs(link.Path); got.Path != link.Path || got.Parent != root || len(got.Dirs) != 0 {
			t.Errorf("listing of %s = %+v", link.Path, got)
		}
	})

	t.Run("the root has no parent", func(t *testing.T) {
		r := e.with(t).do("GET", dirsPath("/"), nil)
		var raw map[string]json.RawMessage
		if r.status != http.StatusOK || json.Unmarshal(r.body, &raw) != nil {
			t.Fatalf("GET / = %d %s", r.status, r.body)
		}
		if _, ok := raw["parent"]; ok || string(raw["path"]) != `"/"` || string(raw["dirs"]) == "null" {
			t.Errorf("listing of / = %s, want path / with no parent", r.body)
		}
	})

	t.Run("empty path and ~ are the home folder", func(t *testing.T) {
		if homeErr != nil {
			t.Skipf("no home folder: %v", homeErr)
		}
		for _, p := range []string{"", "~", "~/"} {
			if got := e.with(t).dirs(p); got.Path != home || got.Home != home {
				t.Errorf("path %q: path %q home %q, want both %q", p, got.Path, got.Home, home)
			}
		}
	})

	missing := filepath.Join(root, "nope")
	file := filepath.Join(root, "gamma.txt")
	type errorCase struct {
		name    string
		path    string
		opts    []reqOpt
		status  int
		code    string
		mention string // the message must contain this
	}
	tests := []errorCase{
		{"relative path", "some/rel", nil, 400, "invalid", `"some/rel"`},
		{"dot path", ".", nil, 400, "invalid", `"."`},
		{"user's home by name", "~root", nil, 400, "invalid", `"~root"`},
		{"NUL byte", root + "\x00x", nil, 400, "invalid", "NUL"},
		{"missing folder", missing, nil, 404, "not_found", missing},
		{"a file", file, nil, 400, "invalid", file},
		{"below a file", file + "/x", nil, 404, "not_found", file + "/x"},
		{"dangling link", filepath.Join(root, "dangling"), nil, 404, "not_found", "dangling"},
		{"no token", root, []reqOpt{noAuth}, 401, "unauthorized", "token"},
	}
	if homeErr == nil {
		tilde := fmt.Sprintf("steward-no-such-folder-%d", os.Getpid())
		tests = append(tests, errorCase{"missing under ~", "~/" + tilde, nil, 404, "not_found", filepath.Join(home, tilde)})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := wantError(t, e.with(t).do("GET", dirsPath(tt.path), nil, tt.opts...), tt.status, tt.code)
			if !strings.Contains(msg, tt.mention) {
				t.Errorf("message %q does not mention %q", msg, tt.mention)
			}
		})
	}

	t.Run("unreadable folder", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("as root every folder is readable, so no 403 can be produced here; TestPathError covers the mapping")
		}
		locked := filepath.Join(t.TempDir(), "locked")
		mkdirs(t, locked, "inside")
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(locked, 0o755) }) // so TempDir can remove it
		msg := wantError(t, e.with(t).do("GET", dirsPath(locked), nil), 403, "forbidden")
		if !strings.Contains(msg, locked) {
			t.Errorf("message %q does not name %s", msg, locked)
		}
	})
}

func TestListDirsTruncated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tt := range []struct {
		n         int
		truncated bool
	}{{1000, false}, {1001, true}} {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for i := range tt.n {
				mkdirs(t, root, fmt.Sprintf("d%04d", i))
			}
			got := e.with(t).dirs(root)
			if len(got.Dirs) != 1000 || got.Truncated != tt.truncated {
				t.Fatalf("%d folders: got %d, truncated %v; want 1000, truncated %v", tt.n, len(got.Dirs), got.Truncated, tt.truncated)
			}
			if first, last := got.Dirs[0].Name, got.Dirs[999].Name; first != "d0000" || last != "d0999" {
				t.Errorf("first and last = %s, %s; want d0000, d0999", first, last)
			}
		})
	}
}
