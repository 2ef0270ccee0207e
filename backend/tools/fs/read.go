package fs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"steward/backend/tool"
)

// MaxReadBytes caps what read_file returns at once. Past it the model is told
// the file's size and line count and asked for a range of lines.
const MaxReadBytes = 256 << 10

// sniffBytes is how much of a file is searched for a NUL byte to call it
// binary, as git and grep do.
const sniffBytes = 8 << 10

// isBinary reports whether data, the start of a file or all of it, looks
// binary: it has a NUL byte in its first sniffBytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0
}

const readDescription = `Read a text file in the workspace. The path is relative to the workspace root.
Without start_line and end_line the whole file is returned as it is, up to 256 KiB; a larger file is refused with its size and line count, and is then read in parts with start_line and end_line (lines count from 1, end_line is inclusive). With a range, the output starts with a header line "path (lines a-b of N)".
Binary files (a NUL byte in the first 8 KiB) are refused. Read a file before changing it with write_file, edit_file or apply_patch: changes to files this run has not read (or that changed since) are refused.`

type readArgs struct {
	Path      string `json:"path" jsonschema:"file to read, relative to the workspace root"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to return, counting from 1; omit to start at line 1"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to return, inclusive; omit to read to the end of the file"`
}

func readFile(ctx context.Context, c call, args readArgs) (string, error) {
	if args.StartLine < 0 || args.EndLine < 0 {
		return "", fail(tool.CodeInvalidArguments, "start_line and end_line count from 1")
	}
	if args.EndLine > 0 && args.EndLine < max(args.StartLine, 1) {
		return "", fail(tool.CodeInvalidArguments, "end_line %d is before start_line %d", args.EndLine, max(args.StartLine, 1))
	}
	rel, err := resolve(c.ws, args.Path)
	if err != nil {
		return "", err
	}
	root, err := c.ws.OpenRoot()
	if err != nil {
		return "", err
	}
	defer root.Close()
	// O_NONBLOCK: a named pipe swapped in for the file must not block the
	// open; it is refused below. It does nothing to a regular file.
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", classify(err, rel)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}
	switch {
	case fi.IsDir():
		return "", fail(CodeIsDirectory, "%s is a directory; list_dir shows its entries", rel)
	case !fi.Mode().IsRegular():
		return "", fail(CodeNotRegular, "%s is %s; read_file reads regular files only", rel, kind(fi.Mode()))
	}

	// A tracked run needs the whole content for its record; a file too large
	// to keep is streamed as without a record, and cannot be replaced later.
	var (
		src     io.Reader = f
		whole   []byte
		tracked = c.files != nil && fi.Size() <= MaxEditBytes
	)
	if tracked {
		whole, err = io.ReadAll(io.LimitReader(f, MaxEditBytes+1))
		if err != nil {
			return "", fmt.Errorf("read %s: %w", rel, err)
		}
		src = bytes.NewReader(whole)
		if len(whole) > MaxEditBytes { // it grew since the Stat
			tracked, src = false, io.MultiReader(src, f)
		}
	}
	out, err := readText(ctx, src, rel, args)
	if err == nil && tracked {
		c.files.Read(rel, whole)
	}
	return out, err
}

// readText returns what read_file shows of the file rel, read from src.
func readText(ctx context.Context, src io.Reader, rel string, args readArgs) (string, error) {
	br := bufio.NewReaderSize(src, 64<<10)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}
	if isBinary(head) {
		return "", fail(CodeBinary, "%s looks like a binary file (it has NUL bytes); read_file returns text only", rel)
	}

	ranged := args.StartLine > 0 || args.EndLine > 0
	start, end := max(args.StartLine, 1), args.EndLine
	if end == 0 {
		end = math.MaxInt
	}
	s, err := scanLines(ctx, br, start, end)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}

	var b strings.Builder
	switch {
	case s.lines == 0:
		return fmt.Sprintf("%s is empty", rel), nil
	case !ranged && s.cut:
		return "", fail(CodeTooLarge, "%s is %d bytes in %s, over the %d KiB read_file returns at once; read it in parts with start_line and end_line, for example start_line 1 and end_line %d",
			rel, s.bytes, count(int64(s.lines), "line", "lines"), MaxReadBytes>>10, suggestLines(s))
	case start > s.lines:
		return "", fail(tool.CodeInvalidArguments, "%s has %s; start_line %d is past the end", rel, count(int64(s.lines), "line", "lines"), start)
	case ranged && s.last < start:
		return "", fail(CodeTooLarge, "line %d of %s alone is over the %d KiB read_file returns at once", start, rel, MaxReadBytes>>10)
	case ranged && s.cut:
		fmt.Fprintf(&b, "%s (lines %d-%d of %d; the rest of the range is over %d KiB, continue with start_line %d)\n",
			rel, start, s.last, s.lines, MaxReadBytes>>10, s.last+1)
	case ranged:
		fmt.Fprintf(&b, "%s (lines %d-%d of %d)\n", rel, start, s.last, s.lines)
	}
	if !utf8.Valid(s.text) {
		// The model receives JSON strings; say so rather than hand it
		// replacement characters it might write back unawares.
		fmt.Fprintf(&b, "(%s is not valid UTF-8; invalid bytes are shown as U+FFFD)\n", rel)
		b.WriteString(strings.ToValidUTF8(string(s.text), "\uFFFD"))
		return b.String(), nil
	}
	b.Write(s.text)
	return b.String(), nil
}

// scanned is what one pass over a file found.
type scanned struct {
	text  []byte // whole lines start..last, within MaxReadBytes
	last  int    // last line in text; start-1 when none fit
	cut   bool   // lines of the range were left out to stay within MaxReadBytes
	lines int    // lines in the file; a last line without "\n" counts
	bytes int64
}

// scanLines reads r to the end, counting lines and keeping the whole lines
// start..end that fit in MaxReadBytes. It never holds more than that and one
// buffer, whatever the length of a line.
func scanLines(ctx context.Context, r io.Reader, start, end int) (scanned, error) {
	s := scanned{last: start - 1}
	var (
		buf     = make([]byte, 64<<10)
		line    = 1     // line of the next byte
		partial []byte  // the part of the current line read so far, when kept
		keep    = true  // whether the current line may still fit
		lastNL  = false // whether the last byte read was "\n"
	)
	for {
		if err := ctx.Err(); err != nil {
			return s, err
		}
		n, err := r.Read(buf)
		chunk := buf[:n]
		s.bytes += int64(n)
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			seg := chunk
			if i >= 0 {
				seg, chunk = chunk[:i+1], chunk[i+1:]
			} else {
				chunk = nil
			}
			lastNL = i >= 0
			if line >= start && line <= end && !s.cut {
				if keep && len(s.text)+len(partial)+len(seg) <= MaxReadBytes {
					partial = append(partial, seg...)
				} else {
					keep = false
				}
			}
			if i < 0 {
				continue
			}
			s.endLine(line, start, end, &partial, &keep)
			line++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s, err
		}
	}
	if s.bytes > 0 && !lastNL {
		s.endLine(line, start, end, &partial, &keep)
		line++
	}
	s.lines = line - 1
	return s, nil
}

// endLine moves a finished line of the range into text, or marks the range
// cut when it did not fit.
func (s *scanned) endLine(line, start, end int, partial *[]byte, keep *bool) {
	if line < start || line > end || s.cut {
		return
	}
	if !*keep {
		s.cut = true
	} else {
		s.text = append(s.text, *partial...)
		s.last = line
	}
	*partial, *keep = (*partial)[:0], true
}

// suggestLines guesses how many lines of the file make a read that the
// registry passes on whole: its default output cap is below MaxReadBytes,
// and a read over that cap loses its middle.
func suggestLines(s scanned) int {
	if s.bytes == 0 || s.lines == 0 {
		return 1
	}
	perLine := max(s.bytes/int64(s.lines), 1)
	budget := int64(min(MaxReadBytes, tool.DefaultMaxOutput)) * 3 / 4
	return max(int(budget/perLine), 1)
}
