package fs

import (
	"cmp"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"steward/backend/workspace"
)

// dirHandle is a directory of a walk, opened as an *os.Root so that its
// files are opened by name, one openat each, and cannot lead outside it. The
// walker and every pending job on one of its files hold a reference; the
// last release closes it.
type dirHandle struct {
	root *os.Root
	refs atomic.Int32
}

func newDirHandle(root *os.Root) *dirHandle {
	h := &dirHandle{root: root}
	h.refs.Store(1)
	return h
}

func (h *dirHandle) hold() { h.refs.Add(1) }

func (h *dirHandle) release() {
	if h.refs.Add(-1) == 0 {
		h.root.Close()
	}
}

// walker walks a directory tree in the workspace for glob and grep: depth
// first, in the order of the paths' bytes (so the files come out sorted),
// skipping .git, write temp files, symlinks (never followed), special files
// and whatever the .gitignore files on the way ignore.
type walker struct {
	// descend says whether to enter the directory rel; nil: always.
	descend func(rel string) bool
	// file is called for every regular file; an error ends the walk.
	file func(h *dirHandle, rel, name string) error
	// unreadable counts the directories that could not be listed.
	unreadable int
}

// walkFrom walks the directory base (a resolved name relative to the
// workspace root, "." for the root), applying the .gitignore files of the
// directories above it too. The directory named by the caller is searched
// even when ignored: naming it is asking for it.
func (w *walker) walkFrom(ctx context.Context, root *os.Root, base string) error {
	// Stat first: opening a named pipe would block.
	fi, err := root.Stat(base)
	if err != nil {
		return classify(err, base)
	}
	if !fi.IsDir() {
		return fail(CodeNotDirectory, "%s is not a directory; give a directory as path", base)
	}
	ig := loadIgnores(root, base)
	sub, err := root.OpenRoot(base)
	if err != nil {
		return classify(err, base)
	}
	h := newDirHandle(sub)
	defer h.release()
	if base == "." {
		base = ""
	}
	return w.walk(ctx, h, base, ig)
}

// loadIgnores reads .git/info/exclude and the .gitignore files of the
// directories from the root down to base's parent; base's own is read when
// it is walked. Files that cannot be read are skipped.
func loadIgnores(root *os.Root, base string) *ignores {
	var ig *ignores
	if data, err := readSmall(root, ".git/info/exclude"); err == nil {
		ig = ig.push("", parseIgnore("", data))
	}
	if base == "." {
		return ig
	}
	dir := ""
	for _, name := range strings.Split(base, "/") {
		if data, err := readSmall(root, path.Join(dir, ".gitignore")); err == nil {
			ig = ig.push(dir, parseIgnore(dir, data))
		}
		dir = join(dir, name)
	}
	return ig
}

// readSmall reads a file of at most maxIgnoreBytes; a larger one is an
// error.
func readSmall(root *os.Root, name string) ([]byte, error) {
	// O_NONBLOCK: a named pipe must not block the open; it is refused below.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreBytes+1))
	if err == nil && len(data) > maxIgnoreBytes {
		err = errors.New("too large")
	}
	return data, err
}

// dirEntry is a directory entry with the key it sorts by.
type dirEntry struct {
	key  string // the name, with "/" after a directory's
	name string
	typ  fs.FileMode
}

// walk walks the directory rel ("" for the root), open as h.
func (w *walker) walk(ctx context.Context, h *dirHandle, rel string, ig *ignores) error {
	entries, ok := list(h.root)
	if !ok {
		w.unreadable++
	}
	for _, e := range entries {
		if e.name == ".gitignore" && e.typ.IsRegular() {
			if data, err := readSmall(h.root, e.name); err == nil {
				ig = ig.push(rel, parseIgnore(rel, data))
			}
			break
		}
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		child := join(rel, e.name)
		switch {
		case e.typ.IsDir():
			if ig.ignored(child, true) || (w.descend != nil && !w.descend(child)) {
				continue
			}
			sub, err := h.root.OpenRoot(e.name)
			if err != nil {
				w.unreadable++ // vanished, no permission, or swapped for a link out
				continue
			}
			sh := newDirHandle(sub)
			err = w.walk(ctx, sh, child, ig)
			sh.release()
			if err != nil {
				return err
			}
		case e.typ.IsRegular():
			if ig.ignored(child, false) {
				continue
			}
			if err := w.file(h, child, e.name); err != nil {
				return err
			}
		}
	}
	return nil
}

// list returns the entries of a directory worth walking, sorted so that the
// walk's paths come out in byte order ("a.txt" before "a/b"); ok is false
// when the directory could not be read whole.
func list(root *os.Root) ([]dirEntry, bool) {
	d, err := root.Open(".")
	if err != nil {
		return nil, false
	}
	des, err := d.ReadDir(-1)
	d.Close()
	out := make([]dirEntry, 0, len(des))
	for _, de := range des {
		name, typ := de.Name(), de.Type()
		if name == ".git" || workspace.IsTemp(name) || typ&fs.ModeSymlink != 0 {
			continue
		}
		key := name
		if typ.IsDir() {
			key += "/"
		}
		out = append(out, dirEntry{key: key, name: name, typ: typ})
	}
	slices.SortFunc(out, func(a, b dirEntry) int { return cmp.Compare(a.key, b.key) })
	return out, err == nil
}

// join joins a directory relative to the walk's root ("" for the root) and
// a name.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
