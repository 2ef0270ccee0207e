package fs

import (
	"context"
	"fmt"
	"io/fs"

	"steward/backend/workspace"
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
	cur, err := loadCurrent(root, rel, c.files != nil || c.dry != nil)
	if err != nil {
		return "", err
	}
	if err := c.checkWrite(rel, cur); err != nil {
		return "", err
	}
	if c.dry.add(rel, cur, []byte(args.Content)) {
		return "", nil
	}
	madeDirs, err := makeParents(root, rel)
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	content := []byte(args.Content)
	if err := workspace.Replace(root, rel, content, cur.mode, cur.exists); err != nil {
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
