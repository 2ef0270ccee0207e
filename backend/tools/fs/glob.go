package fs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"steward/backend/tool"
)

// MaxGlobResults caps the paths glob shows; the rest are counted.
const MaxGlobResults = 1000

const globDescription = `Find files by name pattern, for example "**/*.go", "src/**/*_test.{ts,tsx}" or "docs/*.md". Patterns and the optional path are relative to the workspace root.
"**" matches any number of directories, "*" any characters within a name, "?" one character, "[a-z]" a class, "{a,b}" either alternative. A pattern without "/" matches only in the directory searched: use "**/name" to search everywhere.
Returns matching files (not directories), one a line, sorted by path; at most 1000, with a count of the rest. Skips .git, symlinks, and files ignored by .gitignore (a directory named by path, or by the pattern's start without wildcards, is searched even when ignored); files a permission rule keeps from this run are left out and counted. Use grep to search file contents.`

type globArgs struct {
	Pattern string `json:"pattern" jsonschema:"glob pattern of the files to find, for example **/*.go"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search in, relative to the workspace root; omit for the root"`
}

func globFiles(ctx context.Context, c call, args globArgs) (string, error) {
	if args.Pattern == "" {
		return "", fail(tool.CodeInvalidArguments, "pattern is empty; for example **/*.go finds every Go file")
	}
	base, rest := globBase(args)
	pat, err := compileGlob(rest)
	if err != nil {
		return "", patternFailure(args.Pattern, err)
	}
	rel, err := resolve(c.ws, base)
	if err != nil {
		return "", err
	}
	root, err := c.ws.OpenRoot()
	if err != nil {
		return "", err
	}
	defer root.Close()

	prefix := ""
	if rel != "." {
		prefix = rel + "/"
	}
	var found []string
	more, withheld := 0, 0
	w := &walker{
		descend: func(d string) bool { return pat.mayMatchBelow(strings.TrimPrefix(d, prefix)) },
		file: func(_ *dirHandle, p, _ string) error {
			if !pat.match(strings.TrimPrefix(p, prefix)) {
				return nil
			}
			if c.hidden(p, false) { // the walk never follows a symlink
				withheld++
				return nil
			}
			if len(found) < MaxGlobResults {
				found = append(found, quote(p))
			} else {
				more++
			}
			return nil
		},
	}
	if err := w.walkFrom(ctx, root, rel); err != nil {
		return "", err
	}
	var b strings.Builder
	if len(found) == 0 {
		fmt.Fprintf(&b, "no files match %s in %s/", args.Pattern, quote(rel))
	} else {
		b.WriteString(strings.Join(found, "\n"))
		b.WriteByte('\n')
	}
	if more > 0 {
		fmt.Fprintf(&b, "… %s not shown (glob shows the first %d); use a narrower pattern or path\n", count(int64(more), "more file", "more files"), MaxGlobResults)
	}
	if w.unreadable > 0 {
		fmt.Fprintf(&b, "(%s could not be read)\n", count(int64(w.unreadable), "directory", "directories"))
	}
	b.WriteString(withheldNote(withheld, "file", "files"))
	return b.String(), nil
}

// globBase returns the directory a glob searches, the pattern's literal
// start joined to path, and the rest of the pattern.
func globBase(args globArgs) (base, rest string) {
	base = args.Path
	if base == "" {
		base = "."
	}
	dir, rest := literalPrefix(args.Pattern)
	switch {
	case strings.HasPrefix(dir, "/"):
		base = dir // an absolute pattern: its literal part must lie inside
	case dir != "" && args.Path == "":
		base = dir
	case dir != "":
		base = strings.TrimSuffix(base, "/") + "/" + dir
	}
	return base, rest
}

// patternFailure is the model-visible failure of a glob that does not
// compile.
func patternFailure(p string, err error) error {
	if errors.Is(err, errDotDot) {
		return fail(CodeInvalidPattern, "pattern %s: %v; give the directory to search as path instead", quote(p), err)
	}
	return fail(CodeInvalidPattern, "pattern %s: %v", quote(p), err)
}
