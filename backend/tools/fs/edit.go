package fs

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"steward/backend/tool"
	"steward/backend/workspace"
)

const editDescription = `Replace exact text in an existing file of the workspace. The path is relative to the workspace root.
old_string must match the file exactly, whitespace, indentation and line breaks included (copy it from read_file's output, without the header line), and must occur exactly once: include enough surrounding lines to make it unique, or set replace_all to replace every occurrence. new_string takes its place; an empty new_string deletes it.
Read the file with read_file first: edits of a file this run has not read, or that changed since, are refused. To create a file use write_file; for changes in several places or files at once, apply_patch.`

type editArgs struct {
	Path       string `json:"path" jsonschema:"file to change, relative to the workspace root; it must exist"`
	OldString  string `json:"old_string" jsonschema:"the exact text to replace, as it is in the file"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of requiring exactly one"`
}

// maxHintBytes bounds the old_string for which a failed edit_file looks for
// a match that ignores whitespace.
const maxHintBytes = 8 << 10

// maxLinesListed bounds the line numbers a message lists.
const maxLinesListed = 10

func editFile(ctx context.Context, c call, args editArgs) (string, error) {
	switch {
	case args.OldString == "":
		return "", fail(tool.CodeInvalidArguments, "old_string is empty; give the exact text to replace (to create a file use write_file, to add text include a neighbouring line in old_string and new_string)")
	case args.OldString == args.NewString:
		return "", fail(tool.CodeInvalidArguments, "old_string and new_string are the same; there is nothing to change")
	}
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
	cur, err := loadCurrent(root, rel, true)
	switch {
	case err != nil:
		return "", err
	case !cur.exists:
		return "", fail(CodeNotFound, "%s does not exist; edit_file changes existing files, write_file creates them", rel)
	case isBinary(cur.data):
		return "", fail(CodeBinary, "%s looks like a binary file (it has NUL bytes); edit_file changes text files only", rel)
	}
	if err := c.checkWrite(rel, cur); err != nil {
		return "", err
	}

	old := []byte(args.OldString)
	at := occurrences(cur.data, old)
	switch {
	case len(at) == 0:
		return "", noMatch(rel, cur.data, args.OldString)
	case len(at) > 1 && !args.ReplaceAll:
		return "", fail(CodeAmbiguous, "old_string occurs %d times in %s (at %s); include more of the surrounding text to pick one, or set replace_all to replace every occurrence",
			len(at), rel, lineList(cur.data, at))
	}
	n := 1
	if args.ReplaceAll {
		n = -1
	}
	after := bytes.Replace(cur.data, old, []byte(args.NewString), n)
	if err := ctx.Err(); err != nil || c.dry.add(rel, cur, after) {
		return "", err
	}
	if err := workspace.Replace(root, rel, after, cur.mode, true); err != nil {
		return "", classify(err, rel)
	}
	if err := c.changed(rel, cur, after); err != nil {
		return "", err
	}
	return fmt.Sprintf("replaced %s in %s (at %s)", count(int64(len(at)), "occurrence", "occurrences"), rel, lineList(cur.data, at)), nil
}

// occurrences returns the offsets of the non-overlapping occurrences of old
// in data, as bytes.Replace sees them.
func occurrences(data, old []byte) []int {
	var at []int
	for i := 0; ; {
		j := bytes.Index(data[i:], old)
		if j < 0 {
			return at
		}
		at = append(at, i+j)
		i += j + len(old)
	}
}

// lineList names the lines of the offsets at, which are increasing: "line
// 4", "lines 4, 10 and 22", at most maxLinesListed of them.
func lineList(data []byte, at []int) string {
	var lines []string
	line, from, last := 1, 0, 0
	for _, o := range at {
		line += bytes.Count(data[from:o], []byte{'\n'})
		from = o
		if line != last {
			lines = append(lines, strconv.Itoa(line))
			last = line
		}
	}
	switch {
	case len(lines) == 1:
		return "line " + lines[0]
	case len(lines) > maxLinesListed:
		return fmt.Sprintf("lines %s and %d more", strings.Join(lines[:maxLinesListed], ", "), len(lines)-maxLinesListed)
	}
	return "lines " + strings.Join(lines[:len(lines)-1], ", ") + " and " + lines[len(lines)-1]
}

// noMatch explains an old_string that is not in the file: it says so, and
// where it would match if whitespace did not count.
func noMatch(rel string, data []byte, old string) error {
	msg := fmt.Sprintf("old_string was not found in %s", rel)
	if bytes.Contains(data, []byte("\r\n")) && strings.Contains(old, "\n") && !strings.Contains(old, "\r\n") &&
		bytes.Contains(data, []byte(strings.ReplaceAll(old, "\n", "\r\n"))) {
		return fail(CodeNoMatch, "%s: the file has Windows line endings (\\r\\n) and old_string has \\n; use \\r\\n in old_string and new_string", msg)
	}
	if re := looseRegexp(old); re != nil {
		if locs := re.FindAllIndex(data, -1); len(locs) > 0 {
			at := make([]int, len(locs))
			for i, l := range locs {
				at[i] = l[0]
			}
			return fail(CodeNoMatch, "%s, but it matches at %s when whitespace is ignored: the file's indentation, spacing or line breaks differ from old_string; copy the text exactly as read_file shows it", msg, lineList(data, at))
		}
	}
	return fail(CodeNoMatch, "%s; the file may differ from what you remember: read it again and copy the text to replace exactly", msg)
}

// looseRegexp matches s with any whitespace, or none, between its other
// characters; nil when s is too long or all whitespace.
func looseRegexp(s string) *regexp.Regexp {
	if len(s) > maxHintBytes {
		return nil
	}
	var parts []string
	for _, r := range s {
		if !unicode.IsSpace(r) {
			parts = append(parts, regexp.QuoteMeta(string(r)))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	re, err := regexp.Compile(strings.Join(parts, `\s*`))
	if err != nil {
		return nil
	}
	return re
}
