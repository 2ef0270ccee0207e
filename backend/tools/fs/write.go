package fs

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
)

const writeDescription = `Create a file in the workspace, or replace the whole content of one; missing parent directories are created. The path is relative to the workspace root.
Use it for new files and complete rewrites; to change part of an existing file use edit_file (one exact replacement) or apply_patch (a diff, several places or files). An existing file must have been read with read_file first, and not changed since, or the write is refused. The write is atomic: readers see the old content or the new, never a mix.`

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

func writeFile(ctx context.Context, c call, args writeArgs) (string, error) {
	rel, err := resolve(c.ws, args.Path)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", fail(CodeIsDirectory, "%s is the workspace root; give the path of a file", args.Path)
	}
	root, err := c.ws.OpenRoot()
	if err != nil {
		return "", err
	}
	defer root.Close()

	// Resolve followed a symlinked final component to its target, so rel is
	// the file itself: the rename below replaces it and keeps the link.
	cur, err := loadCurrent(root, rel, c.files != nil)
	if err != nil {
		return "", err
	}
	if err := c.checkWrite(rel, cur); err != nil {
		return "", err
	}
	madeDirs, err := makeParents(root, rel)
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	content := []byte(args.Content)
	if err := replace(root, rel, content, cur.mode, cur.exists); err != nil {
		return "", classify(err, rel)
	}
	if err := c.changed(rel, cur, content); err != nil {
		return "", err
	}

	what := "created"
	switch {
	case cur.exists:
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
	tmp := path.Join(path.Dir(name), tempPrefix+rand.Text()[:12]+tempSuffix)
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
