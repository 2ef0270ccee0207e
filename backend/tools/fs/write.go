package fs

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"steward/backend/workspace"
)

const writeDescription = `Write a text file in the workspace, replacing its whole content, or creating it and any missing parent directories. The path is relative to the workspace root.
The write is atomic: readers see the old content or the new, never a mix. Read the file first when you mean to change only part of it.`

type writeArgs struct {
	Path    string `json:"path" jsonschema:"file to write, relative to the workspace root; missing parent directories are created"`
	Content string `json:"content" jsonschema:"the complete new content of the file"`
}

// newFileMode and newDirMode are what a new file and directory get before
// the umask, as with touch and mkdir.
const (
	newFileMode fs.FileMode = 0o644
	newDirMode  fs.FileMode = 0o755
)

func writeFile(ctx context.Context, ws *workspace.Root, args writeArgs) (string, error) {
	rel, err := resolve(ws, args.Path)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", fail(CodeIsDirectory, "%s is the workspace root; give the path of a file", args.Path)
	}
	root, err := ws.OpenRoot()
	if err != nil {
		return "", err
	}
	defer root.Close()

	// Resolve followed a symlinked final component to its target, so rel is
	// the file itself: the rename below replaces it and keeps the link.
	mode, replaced := newFileMode, false
	switch fi, err := root.Lstat(rel); {
	case err == nil && fi.IsDir():
		return "", fail(CodeIsDirectory, "%s is a directory; give the path of a file", rel)
	case err == nil && !fi.Mode().IsRegular():
		return "", fail(CodeNotRegular, "%s is %s; write_file writes regular files only", rel, kind(fi.Mode()))
	case err == nil:
		mode, replaced = fi.Mode().Perm(), true
	case !errors.Is(err, fs.ErrNotExist):
		return "", classify(err, rel)
	}

	dir := path.Dir(rel)
	madeDirs := false
	if dir != "." {
		if _, err := root.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			madeDirs = true
		}
		if err := root.MkdirAll(dir, newDirMode); err != nil {
			return "", classify(err, dir)
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := replace(root, rel, []byte(args.Content), mode, replaced); err != nil {
		return "", classify(err, rel)
	}

	what := "created"
	switch {
	case replaced:
		what = "replaced the previous content"
	case madeDirs:
		what = "created, with its missing parent directories"
	}
	return fmt.Sprintf("wrote %s to %s (%s)", count(int64(len(args.Content)), "byte", "bytes"), rel, what), nil
}

// replace writes data to a new file next to name and renames it over name,
// so that readers see the old content or the new, never a mix. A hard link
// to the old file keeps the old content. keepMode sets mode exactly, past
// the umask, for a file being replaced.
func replace(root *os.Root, name string, data []byte, mode fs.FileMode, keepMode bool) (err error) {
	tmp := path.Join(path.Dir(name), ".steward-"+rand.Text()[:12]+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, root.Remove(tmp))
		}
	}()
	// Chmod on the descriptor, which cannot be redirected through a symlink.
	if keepMode {
		if err := f.Chmod(mode); err != nil {
			return errors.Join(err, f.Close())
		}
	}
	if _, err := f.Write(data); err != nil {
		return errors.Join(err, f.Close())
	}
	// Sync before the rename, or a crash can leave the new name on an empty
	// file.
	if err := f.Sync(); err != nil {
		return errors.Join(err, f.Close())
	}
	if err := f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, name)
}
