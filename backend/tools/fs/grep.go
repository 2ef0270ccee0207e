package fs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"steward/backend/tool"
)

// Limits of grep's output.
const (
	DefaultGrepResults = 200
	MaxGrepResults     = 2000
	// maxGrepOutput keeps grep's output under the registry's cap, which
	// would otherwise cut its middle.
	maxGrepOutput = 192 << 10
	// grepCountFiles is how many files grep goes on searching after its
	// output is full, to say how much it left out; past them it stops and
	// says "at least". The cap keeps a search that matches everywhere as
	// fast as one that matches nothing on a small tree.
	grepCountFiles = 2000
	// grepWindow bounds the files in flight between the walker and the
	// output, in order: it bounds memory and open directories.
	grepWindow = 256
)

const grepDescription = `Search the contents of files with a regular expression (RE2 syntax: no lookaround or backreferences; escape ( ) [ ] { } . * + ? | \ with \ to match them literally). Each line is matched on its own.
Returns one line per match, "path:line: text", sorted by path, paths relative to the workspace root (give them to read_file). At most max_results (default 200) are shown, with a count of the rest.
Searches the workspace, or path (a directory or a file, relative to the workspace root), optionally only files whose path matches glob ("*.go" matches names anywhere, "src/**/*.ts" paths below path). Skips .git, symlinks, binary files, files over 4 MiB, and files ignored by .gitignore (unless path names them or their directory); files a permission rule keeps from this run are not searched, and counted. Use glob to find files by name.`

type grepArgs struct {
	Pattern         string `json:"pattern" jsonschema:"regular expression (RE2) to search for, matched against each line"`
	Path            string `json:"path,omitempty" jsonschema:"file or directory to search, relative to the workspace root; omit for the whole workspace"`
	Glob            string `json:"glob,omitempty" jsonschema:"only search files matching this glob: without / it matches file names (*.go), with / paths below path (src/**/*.ts)"`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" jsonschema:"match letters regardless of case"`
	MaxResults      int    `json:"max_results,omitempty" jsonschema:"most matching lines to show; default 200, at most 2000"`
}

func grepFiles(ctx context.Context, c call, args grepArgs) (string, error) {
	if args.Pattern == "" {
		return "", fail(tool.CodeInvalidArguments, "pattern is empty")
	}
	if args.MaxResults < 0 {
		return "", fail(tool.CodeInvalidArguments, "max_results must be positive")
	}
	limit := args.MaxResults
	if limit == 0 {
		limit = DefaultGrepResults
	}
	limit = min(limit, MaxGrepResults)
	m, err := compileLines(args.Pattern, args.CaseInsensitive)
	if err != nil {
		return "", fail(CodeInvalidPattern, "%v; grep takes RE2 syntax: escape ( ) [ ] { } . * + ? | with \\ to search for them literally", err)
	}
	var filter *fileFilter
	if args.Glob != "" {
		p, err := compileGlob(args.Glob)
		if err != nil {
			return "", patternFailure(args.Glob, err)
		}
		filter = &fileFilter{p: p, names: !strings.Contains(args.Glob, "/")}
	}
	base := args.Path
	if base == "" {
		base = "."
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
	fi, err := root.Stat(rel)
	if err != nil {
		return "", classify(err, rel)
	}

	col := &collector{max: limit, pending: map[int]fileResult{}}
	switch {
	case fi.Mode().IsRegular():
		// One file, named: searched whatever .gitignore says.
		dir, name := splitRel(rel)
		sub, err := root.OpenRoot(dir)
		if err != nil {
			return "", classify(err, rel)
		}
		h := newDirHandle(sub)
		var buf []byte
		col.emit(m.searchFile(h, rel, name, &buf, limit))
		h.release()
	case fi.IsDir():
		col.hidden = c.hidden
		if err := col.search(ctx, root, rel, m, filter); err != nil {
			return "", err
		}
	default:
		return "", fail(CodeNotRegular, "%s is %s; grep searches files and directories", rel, kind(fi.Mode()))
	}
	return col.report(args, rel, filter != nil), nil
}

// fileFilter is grep's glob: a pattern without "/" matches the names of
// files anywhere, as ripgrep's --glob does; one with "/" matches paths
// relative to the directory searched.
type fileFilter struct {
	p     pattern
	names bool
}

func (f *fileFilter) match(rel string) bool {
	if f.names {
		return f.p.match(path.Base(rel))
	}
	return f.p.match(rel)
}

func (f *fileFilter) descend(dir string) bool { return f.names || f.p.mayMatchBelow(dir) }

// splitRel splits a resolved name into its directory and its last name.
func splitRel(rel string) (dir, name string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ".", rel
	}
	return rel[:i], rel[i+1:]
}

// job is one file for a searcher.
type job struct {
	idx       int
	h         *dirHandle
	rel, name string
}

// search walks the directory base and searches its files: the walker sends
// them in order to GOMAXPROCS searchers, whose results the collector puts
// back in order. Once the output is full and counted, the collector cancels
// the rest. Every goroutine has ended when search returns.
func (col *collector) search(ctx context.Context, root *os.Root, base string, m *lineMatcher, filter *fileFilter) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	// Each job holds a slot of window from the walker until the collector
	// has taken its result: so jobs and results never wait for room.
	window := make(chan struct{}, grepWindow)
	jobs := make(chan job, grepWindow)
	results := make(chan fileResult, grepWindow)
	var full atomic.Bool // the output is full: searchers only count

	prefix := ""
	if base != "." {
		prefix = base + "/"
	}
	idx, withheld := 0, 0
	w := &walker{file: func(h *dirHandle, rel, name string) error {
		if filter != nil && !filter.match(strings.TrimPrefix(rel, prefix)) {
			return nil
		}
		if col.hidden != nil && col.hidden(rel, false) { // the walk never follows a symlink
			withheld++
			return nil
		}
		select {
		case window <- struct{}{}:
		case <-gctx.Done():
			return gctx.Err()
		}
		h.hold()
		jobs <- job{idx: idx, h: h, rel: rel, name: name}
		idx++
		return nil
	}}
	if filter != nil {
		w.descend = func(d string) bool { return filter.descend(strings.TrimPrefix(d, prefix)) }
	}
	g.Go(recovered(func() error {
		defer close(jobs)
		return w.walkFrom(gctx, root, base)
	}))
	n := runtime.GOMAXPROCS(0)
	var live atomic.Int32
	live.Store(int32(n))
	for range n {
		g.Go(recovered(func() error {
			defer func() {
				if live.Add(-1) == 0 {
					close(results)
				}
			}()
			var buf []byte
			for j := range jobs {
				r := fileResult{idx: j.idx, skip: skipUnreadable}
				if gctx.Err() == nil {
					lim := col.max
					if full.Load() {
						lim = 0
					}
					r = m.searchFile(j.h, j.rel, j.name, &buf, lim)
					r.idx = j.idx
				}
				j.h.release()
				results <- r
			}
			return nil
		}))
	}
	for r := range results {
		if col.stopped {
			continue // draining after the cancel
		}
		col.pending[r.idx] = r
		for {
			next, ok := col.pending[col.next]
			if !ok {
				break
			}
			delete(col.pending, col.next)
			col.next++
			<-window
			col.emit(next)
			if col.full {
				full.Store(true)
			}
			if col.stopped {
				cancel()
				break
			}
		}
	}
	// The walker has ended: results is closed.
	col.unreadableDirs, col.withheld = w.unreadable, withheld
	err := g.Wait()
	if col.stopped && errors.Is(err, context.Canceled) {
		return nil // the cancel was ours: the output is complete
	}
	return err
}

// recovered turns a panic of a goroutine into its error, with the stack.
func recovered(f func() error) func() error {
	return func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("grep: panic: %v\n%s", p, debug.Stack())
			}
		}()
		return f()
	}
}
