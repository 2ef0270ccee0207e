package fs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"steward/backend/workspace"
)

const patchDescription = `Apply a unified diff, as diff -u or git diff write it, to one or more files of the workspace, all or nothing. Use it for changes in several places or files at once; for one replacement edit_file is simpler.
Each file starts with "--- a/path" and "+++ b/path" lines (paths relative to the workspace root; the a/ and b/ prefixes are optional), then hunks: "@@ -start,count +start,count @@", then lines starting with " " (context, unchanged), "-" (removed) or "+" (added). Give about 3 context lines around each change. "--- /dev/null" creates a file, "+++ /dev/null" deletes one.
Context and removed lines must match the file exactly; a hunk is looked for up to 100 lines from the line its header states. If any hunk does not apply, nothing is changed and the message names the hunk and the line that differs. Files changed must have been read with read_file first, and not changed since.`

type patchArgs struct {
	Patch string `json:"patch" jsonschema:"the unified diff to apply"`
}

// patchedFile is the planned change of one file.
type patchedFile struct {
	rel     string
	cur     current // as it was on disk
	t       text    // as the patch leaves it
	exists  bool    // whether it exists after the hunks so far
	existed bool    // whether it existed on disk
	applied applied
}

func applyPatch(ctx context.Context, c call, args patchArgs) (string, error) {
	files, err := parsePatch(args.Patch)
	if err != nil {
		return "", err
	}
	root, err := c.ws.OpenRoot()
	if err != nil {
		return "", err
	}
	defer root.Close()

	// Plan every change in memory first: all or nothing.
	var order []*patchedFile
	byRel := map[string]*patchedFile{}
	load := func(p string) (*patchedFile, error) {
		rel, err := resolve(c.ws, p)
		if err != nil {
			return nil, err
		}
		if rel == "." {
			return nil, fail(CodeIsDirectory, "%s is the workspace root; a patch changes files", p)
		}
		if pf := byRel[rel]; pf != nil {
			return pf, nil
		}
		cur, err := loadCurrent(root, rel, true)
		if err != nil {
			return nil, err
		}
		if cur.exists && isBinary(cur.data) {
			return nil, fail(CodeBinary, "%s looks like a binary file (it has NUL bytes); apply_patch changes text files only", rel)
		}
		if err := c.checkWrite(rel, cur); err != nil {
			return nil, err
		}
		pf := &patchedFile{rel: rel, cur: cur, t: splitText(cur.data), exists: cur.exists, existed: cur.exists}
		byRel[rel] = pf
		order = append(order, pf)
		return pf, nil
	}
	for _, f := range files {
		pf, err := load(patchTarget(root, f))
		if err != nil {
			return "", err
		}
		switch {
		case f.oldPath == "" && pf.exists:
			return "", fail(CodePatchConflict, "the patch creates %s (--- /dev/null), which already exists; make the patch against its content, or delete it first; nothing was changed", pf.rel)
		case f.oldPath != "" && !pf.exists:
			return "", fail(CodePatchConflict, "the patch changes %s, which does not exist; to create it use --- /dev/null; nothing was changed", pf.rel)
		}
		if err := pf.t.apply(pf.rel, f, &pf.applied); err != nil {
			return "", err
		}
		switch {
		case f.newPath == "":
			if len(pf.t.lines) > 0 {
				return "", fail(CodePatchConflict, "the patch deletes %s (+++ /dev/null), but its hunks leave %s of it; nothing was changed", pf.rel, count(int64(len(pf.t.lines)), "line", "lines"))
			}
			pf.exists = false
		case f.oldPath == "":
			pf.exists = true
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if c.dry != nil {
		for _, pf := range order {
			c.dry.add(pf.rel, pf.cur, pf.after())
		}
		return "", nil
	}
	if err := writeAll(root, order); err != nil {
		return "", err
	}
	var errs []error
	for _, pf := range order {
		errs = append(errs, c.changed(pf.rel, pf.cur, pf.after()))
	}
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	return patchReport(order), nil
}

// patchTarget returns the file of the workspace that the section f of a
// patch changes, as the patch names it: its new name, or its old one when
// it deletes the file, or when only the old one exists ("diff -u x.orig
// x"). The permission policy decides on the same (see patchTouches).
func patchTarget(root *os.Root, f *filePatch) string {
	switch {
	case f.newPath == "":
		return f.oldPath
	case f.oldPath != "" && f.oldPath != f.newPath:
		if _, err := root.Lstat(f.newPath); err != nil {
			if _, err := root.Lstat(f.oldPath); err == nil {
				return f.oldPath
			}
		}
	}
	return f.newPath
}

// after is the content the patch leaves; nil when it deletes the file.
func (pf *patchedFile) after() []byte {
	if !pf.exists {
		return nil
	}
	return pf.t.bytes()
}

// writeAll makes the planned changes. When one fails, those made before it
// are taken back, so that the patch is still all or nothing.
func writeAll(root *os.Root, order []*patchedFile) error {
	for i, pf := range order {
		err := write(root, pf.rel, pf.existed, pf.after(), pf.cur.mode)
		if err == nil {
			continue
		}
		var undo []error
		for _, done := range order[:i] {
			undo = append(undo, write(root, done.rel, done.exists, done.cur.before(), done.cur.mode))
		}
		err = classify(err, pf.rel)
		var f *failure
		if errors.As(err, &f) && errors.Join(undo...) == nil {
			return fail(f.code, "%s; the patch was not applied", f.msg)
		}
		return errors.Join(append([]error{err}, undo...)...)
	}
	return nil
}

// write puts content (nil: no file) at rel, which exists or not.
func write(root *os.Root, rel string, exists bool, content []byte, mode os.FileMode) error {
	switch {
	case content == nil && !exists:
		return nil
	case content == nil:
		return root.Remove(rel)
	}
	if _, err := makeParents(root, rel); err != nil {
		return err
	}
	return workspace.Replace(root, rel, content, mode, exists)
}

// patchReport says what the patch changed, a line per file.
func patchReport(order []*patchedFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "applied the patch to %s:\n", count(int64(len(order)), "file", "files"))
	var notes []string
	for _, pf := range order {
		a := pf.applied
		switch {
		case !pf.existed && pf.exists:
			fmt.Fprintf(&b, "%s: created, %s\n", quote(pf.rel), count(int64(len(pf.t.lines)), "line", "lines"))
		case pf.existed && !pf.exists:
			fmt.Fprintf(&b, "%s: deleted\n", quote(pf.rel))
		default:
			fmt.Fprintf(&b, "%s: %s, +%d -%d lines\n", quote(pf.rel), count(int64(a.hunks), "hunk", "hunks"), a.added, a.removed)
		}
		notes = append(notes, a.notes...)
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "(%s)\n", n)
	}
	return b.String()
}
