// Package workspace confines paths given by a model to one directory, the
// workspace root.
//
// Resolve turns a model's path into an absolute path beneath the root,
// following every symlink of the components that exist, and refuses paths
// that leave the root on the way, even for a moment: "a/../../ws/x" is
// refused although it ends inside, as the kernel's RESOLVE_BENEATH would.
// Paths use Unix semantics; Windows volume names are not handled.
//
// Resolve checks, the caller then opens: between the two a component may be
// swapped for a symlink that leads outside (time of check to time of use).
// So Resolve is for validation and for messages, and callers do the I/O
// through OpenRoot, an *os.Root whose methods walk the path one component at
// a time relative to the root's descriptor and refuse to leave it, whatever
// changed since Resolve. Passing Rel of Resolve's result to the *os.Root
// gives it a symlink-free path, so absolute symlinks that point inside the
// workspace, which os.Root refuses on its own, still work. What neither
// catches: hard links and bind mounts that already lead out of the root, and
// special files under /proc reached through a path inside it.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// Limits of a path, those of Linux (PATH_MAX and NAME_MAX): a longer path
// could not be opened anyway, and the model learns why from Resolve.
const (
	maxPath  = 4096
	maxName  = 255
	maxLinks = 40 // as Linux's MAXSYMLINKS; more means a loop
)

// Root is a workspace directory. It holds no descriptor and needs no Close.
type Root struct {
	path  string // absolute and symlink-resolved
	alias string // absolute but as given, which a model may quote back
}

// Open returns the workspace at dir, which must exist and be a directory.
// Its error names the path: "workspace /x does not exist" (matching
// fs.ErrNotExist) or "workspace /x is not a directory".
func Open(dir string) (*Root, error) {
	if dir == "" {
		return nil, errors.New("workspace path is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &pathError{msg: fmt.Sprintf("workspace %s does not exist", abs), kind: fs.ErrNotExist}
	case err != nil:
		return nil, fmt.Errorf("workspace %s: %w", abs, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("workspace %s is not a directory", abs)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", abs, err)
	}
	return &Root{path: resolved, alias: abs}, nil
}

// Path returns the root as an absolute, symlink-resolved path.
func (r *Root) Path() string { return r.path }

// OpenRoot opens the root as an *os.Root for the actual I/O; see the package
// comment. The caller closes it.
func (r *Root) OpenRoot() (*os.Root, error) {
	root, err := os.OpenRoot(r.path)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", r.path, err)
	}
	return root, nil
}

// Rel returns abs relative to the root with slashes, "." for the root itself;
// it is the name to pass to OpenRoot's methods and to show the model. It
// fails with ErrOutside when abs is not the root or beneath it.
func (r *Root) Rel(abs string) (string, error) {
	if abs == r.path {
		return ".", nil
	}
	prefix := r.path
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(abs, prefix) {
		return "", &pathError{msg: fmt.Sprintf("path %s is outside the workspace", show(abs)), kind: ErrOutside}
	}
	return filepath.ToSlash(abs[len(prefix):]), nil
}

// Resolve returns the absolute, symlink-free path that p names beneath the
// root. p is relative to the root, or absolute and beneath it. Components
// that do not exist yet are allowed, so that a file or directories can be
// created there; every existing component is followed through its symlinks.
//
// The error wraps ErrOutside when p, or a symlink on its way, leads outside
// the root, and ErrInvalidPath when p is empty, too long, has control
// characters, passes through a file or loops through symlinks. Its message
// names p and is meant for the model. Other errors are the file system's
// (for example fs.ErrPermission on a directory that cannot be searched).
func (r *Root) Resolve(p string) (string, error) {
	if err := check(p); err != nil {
		return "", err
	}
	comps := split(p)
	if filepath.IsAbs(p) {
		rest, ok := r.within(p)
		if !ok {
			return "", &pathError{
				msg:  fmt.Sprintf("path %s is outside the workspace; give a path relative to the workspace root", show(p)),
				kind: ErrOutside,
			}
		}
		comps = rest
	}
	w := &walker{root: r, input: p}
	abs, _, err := w.walk(r.path, comps)
	if err != nil {
		return "", err
	}
	if len(abs) > maxPath {
		return "", invalid("path %s resolves to more than %d bytes", show(p), maxPath)
	}
	return abs, nil
}

// Spelled returns p, a path as a model gives it (relative to the root, or
// absolute and beneath it), cleaned and relative to the root with slashes,
// as it reads before any symlink is followed: "a/../b" is "b" even when a
// is a symlink, where Resolve follows a first. It is the name a call gives
// a file, which permission rules match besides the real path. ok is false
// when p is not a valid path or reads as leaving the root; Resolve refuses
// those too.
func (r *Root) Spelled(p string) (string, bool) {
	if check(p) != nil {
		return "", false
	}
	comps := split(p)
	if filepath.IsAbs(p) {
		rest, ok := r.within(p)
		if !ok {
			return "", false
		}
		comps = rest
	}
	var out []string
	for _, c := range comps {
		if c != ".." {
			out = append(out, c)
			continue
		}
		if len(out) == 0 {
			return "", false
		}
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return ".", true
	}
	return strings.Join(out, "/"), true
}

// within returns the components of the absolute path p below the root, when
// p starts with the root as resolved or as given. The match is on whole
// components, without cleaning: "/ws/../ws/x" does not match.
func (r *Root) within(p string) ([]string, bool) {
	pc := split(p)
	for _, base := range []string{r.path, r.alias} {
		bc := split(base)
		if len(pc) >= len(bc) && equal(pc[:len(bc)], bc) {
			return pc[len(bc):], true
		}
	}
	return nil, false
}

// walker resolves one path given to Resolve.
type walker struct {
	root  *Root
	input string // as given, for messages
	links int    // symlinks followed so far
}

// walk resolves comps from dir, which is symlink-free and beneath the root.
// It returns the symlink-free result and how many of its trailing components
// do not exist.
func (w *walker) walk(dir string, comps []string) (string, int, error) {
	cur, missing := dir, 0
	for _, c := range comps {
		switch c {
		case ".":
			continue
		case "..":
			if missing == 0 && cur == w.root.path {
				return "", 0, &pathError{msg: fmt.Sprintf("path %s resolves outside the workspace", show(w.input)), kind: ErrOutside}
			}
			if missing > 0 {
				missing--
			}
			// cur has no symlinks, so its lexical parent is its real parent.
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if missing > 0 {
			missing++
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = 1
			cur = next
		case errors.Is(err, syscall.ENOTDIR):
			return "", 0, invalid("path %s goes through %s, which is a file, not a directory", show(w.input), w.rel(cur))
		case err != nil:
			return "", 0, fmt.Errorf("resolve %s: %w", show(w.input), err)
		case fi.Mode()&fs.ModeSymlink != 0:
			cur, missing, err = w.follow(cur, next)
			if err != nil {
				return "", 0, err
			}
		default:
			cur = next
		}
	}
	return cur, missing, nil
}

// follow resolves the symlink link, which lies in the directory dir.
func (w *walker) follow(dir, link string) (string, int, error) {
	w.links++
	if w.links > maxLinks {
		return "", 0, invalid("path %s passes through more than %d symlinks; is there a loop?", show(w.input), maxLinks)
	}
	target, err := os.Readlink(link)
	if err != nil {
		return "", 0, fmt.Errorf("resolve %s: %w", show(w.input), err)
	}
	base, comps := dir, split(target)
	if filepath.IsAbs(target) {
		rest, ok := w.root.within(target)
		if !ok {
			return "", 0, w.escaped(link, target)
		}
		base, comps = w.root.path, rest
	}
	res, missing, err := w.walk(base, comps)
	var pe *pathError
	if errors.As(err, &pe) && pe.kind == ErrOutside && !pe.viaLink {
		return "", 0, w.escaped(link, target)
	}
	return res, missing, err
}

func (w *walker) escaped(link, target string) error {
	return &pathError{
		msg:     fmt.Sprintf("path %s resolves outside the workspace: %s is a symlink to %s", show(w.input), w.rel(link), show(target)),
		kind:    ErrOutside,
		viaLink: true,
	}
}

// rel is Rel for paths the walker built, which are beneath the root.
func (w *walker) rel(abs string) string {
	if s, err := w.root.Rel(abs); err == nil {
		return show(s)
	}
	return show(abs)
}

// check refuses what no component walk should see: control characters,
// over-long paths and names, invalid UTF-8.
func check(p string) error {
	if p == "" {
		return invalid(`path is empty; use "." for the workspace root`)
	}
	if len(p) > maxPath {
		return invalid("path %s is %d bytes long; paths are limited to %d bytes", show(p), len(p), maxPath)
	}
	if !utf8.ValidString(p) {
		return invalid("path %s is not valid UTF-8", show(p))
	}
	for _, c := range p {
		switch {
		case c == 0:
			return invalid("path %s contains a NUL byte", show(p))
		// Bidi controls and line separators are refused with the control
		// characters: they make a name read differently from what it is
		// to the person who approves the call.
		case unicode.IsControl(c), unicode.Is(unicode.Bidi_Control, c), unicode.In(c, unicode.Zl, unicode.Zp):
			return invalid("path %s contains the control character %U; names may not contain newlines, tabs or other control characters", show(p), c)
		}
	}
	for _, c := range strings.Split(p, string(filepath.Separator)) {
		if len(c) > maxName {
			return invalid("path %s has a name of %d bytes; names are limited to %d bytes", show(p), len(c), maxName)
		}
	}
	return nil
}

func invalid(format string, args ...any) error {
	return &pathError{msg: fmt.Sprintf(format, args...), kind: ErrInvalidPath}
}

// split returns the components of p, without empty ones and ".".
func split(p string) []string {
	var out []string
	for _, c := range strings.Split(p, string(filepath.Separator)) {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// show quotes p when it has characters that would break a message and
// shortens it when it is long.
func show(p string) string {
	const max = 120
	if len(p) > max {
		cut := max / 2
		for cut > 0 && !utf8.RuneStart(p[cut]) {
			cut--
		}
		p = fmt.Sprintf("%s…(%d bytes)", p[:cut], len(p))
	}
	for _, c := range p {
		if c == utf8.RuneError || !unicode.IsPrint(c) {
			return fmt.Sprintf("%q", p)
		}
	}
	return p
}
