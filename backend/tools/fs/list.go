package fs

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"steward/backend/workspace"
)

// MaxListEntries caps the entries list_dir shows; the rest are counted.
const MaxListEntries = 500

const listDescription = `List a directory in the workspace. The path is relative to the workspace root; omit it or give "." for the root.
Entries are sorted by name, one a line: directories end with "/", files show their size in bytes, symlinks show their target. At most 500 entries are shown, with a count of the rest. Entries a permission rule keeps from this run are left out and counted.`

type listArgs struct {
	Path string `json:"path,omitempty" jsonschema:"directory to list, relative to the workspace root; omit for the root"`
}

func listDir(ctx context.Context, c call, args listArgs) (string, error) {
	p := args.Path
	if p == "" {
		p = "."
	}
	rel, err := resolve(c.ws, p)
	if err != nil {
		return "", err
	}
	root, err := c.ws.OpenRoot()
	if err != nil {
		return "", err
	}
	defer root.Close()
	d, err := root.Open(rel)
	if err != nil {
		return "", classify(err, rel)
	}
	defer d.Close()
	fi, err := d.Stat()
	if err != nil {
		return "", fmt.Errorf("list %s: %w", rel, err)
	}
	if !fi.IsDir() {
		return "", fail(CodeNotDirectory, "%s is a file, not a directory; read_file reads it", rel)
	}
	names, err := d.Readdirnames(-1)
	if err != nil {
		return "", classify(err, rel)
	}
	names = slices.DeleteFunc(names, workspace.IsTemp)
	withheld := 0
	if c.withheld != nil {
		names = slices.DeleteFunc(names, func(name string) bool {
			p := path.Join(rel, name)
			fi, err := root.Lstat(p)
			if c.hidden(p, err == nil && fi.Mode()&os.ModeSymlink != 0) {
				withheld++
				return true
			}
			return false
		})
	}
	slices.Sort(names)

	var b strings.Builder
	shown := names[:min(len(names), MaxListEntries)]
	title := quote(rel) + "/"
	note := withheldNote(withheld, "entry", "entries")
	if len(names) == 0 && note == "" {
		return title + " is empty", nil
	}
	if len(names) == 0 {
		return title + " has nothing to show\n" + note, nil
	}
	fmt.Fprintf(&b, "%s (%s)\n", title, count(int64(len(names)), "entry", "entries"))
	for _, name := range shown {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		b.WriteString(entry(root, path.Join(rel, name), name))
		b.WriteByte('\n')
	}
	if left := len(names) - len(shown); left > 0 {
		fmt.Fprintf(&b, "… %s not shown (list_dir shows the first %d)\n", count(int64(left), "more entry", "more entries"), MaxListEntries)
	}
	b.WriteString(note)
	return b.String(), nil
}

// entry formats one directory entry. An entry that vanished or cannot be
// examined is still listed, with the reason.
func entry(root *os.Root, rel, name string) string {
	fi, err := root.Lstat(rel)
	switch {
	case err != nil:
		return quote(name) + " (cannot be examined)"
	case fi.IsDir():
		return quote(name) + "/"
	case fi.Mode().IsRegular():
		return fmt.Sprintf("%s (%s)", quote(name), count(fi.Size(), "byte", "bytes"))
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := root.Readlink(rel)
		if err != nil {
			return quote(name) + " (symlink)"
		}
		return fmt.Sprintf("%s -> %s", quote(name), quote(target))
	}
	return fmt.Sprintf("%s (%s)", quote(name), strings.TrimPrefix(kind(fi.Mode()), "a "))
}

// quote quotes a name that has characters which would break the one entry
// a line format, such as a newline: file names may hold any byte but "/".
func quote(name string) string {
	for _, c := range name {
		if c == utf8.RuneError || !unicode.IsPrint(c) {
			return strconv.Quote(name)
		}
	}
	return name
}
