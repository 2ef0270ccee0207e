package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"steward/backend/policy"
)

// Prepared says what PrepareWorkspace did.
type Prepared struct {
	Written []string // files put back to their content before the run
	Removed []string // files the run created, removed
	// Unknown are files whose content before the run the recording does
	// not have (changed by a command or outside before the run saw them,
	// or too large to keep): left as they are.
	Unknown []string
}

// PrepareOptions tune PrepareWorkspace.
type PrepareOptions struct {
	// NonEmpty lets the folder hold files already: the recorded ones are
	// then put back over them. Without it a folder that holds anything is
	// refused, so a replay never overwrites work by surprise.
	NonEmpty bool
}

// PrepareWorkspace makes dir (created if needed) the workspace the
// recorded run started from, as far as the recording knows it: every file
// the run changed gets its content before the run's first change of it, or
// is removed when the run created it. Files the run only read are not in a
// recording: a replay with live tools that reads them needs a copy of the
// original workspace as dir.
//
// It is all or nothing. Every path is checked before the first write: it
// must be a plain relative path that stays in dir (checkPath: nothing in a
// .git folder, nothing that makes a folder a repository), and, in a folder
// that holds files already, must not pass through a link or a non-folder,
// nor name a folder or a link itself. A write that fails then takes back
// the ones before it. An error that is ErrRefused is about the recording
// or the folder chosen, not the system.
func PrepareWorkspace(rec *Recorded, dir string, o PrepareOptions) (Prepared, error) {
	var p Prepared
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return p, fmt.Errorf("replay workspace: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return p, fmt.Errorf("replay workspace: %w", err)
	}
	defer root.Close()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return p, fmt.Errorf("replay workspace: %w", err)
	}
	if len(entries) > 0 && !o.NonEmpty {
		return p, refused("workspace %s is not empty (it holds %s%s): a replay puts the recorded files back there over what it holds; choose an empty folder, or allow a folder that is not empty",
			dir, entries[0].Name(), more(len(entries)-1))
	}

	// Every path first.
	type op struct {
		ch      string // the path, slash-separated
		content []byte // nil: remove
	}
	var ops []op
	for _, ch := range rec.firsts {
		var content []byte
		switch {
		case ch.BeforeUnknown:
			p.Unknown = append(p.Unknown, ch.Path)
			continue
		case ch.Before != "":
			b, ok := rec.blobs[ch.Before]
			if !ok {
				p.Unknown = append(p.Unknown, ch.Path)
				continue
			}
			content = b
		}
		if err := checkPath(ch.Path, content); err != nil {
			return Prepared{}, err
		}
		if err := checkOnDisk(root, ch.Path); err != nil {
			return Prepared{}, err
		}
		ops = append(ops, op{ch.Path, content})
	}

	// Then the writes, each undone if a later one fails.
	var undo []func()
	fail := func(err error) (Prepared, error) {
		for _, u := range slices.Backward(undo) {
			u()
		}
		return Prepared{}, err
	}
	for _, o := range ops {
		name := filepath.FromSlash(o.ch)
		old, rerr := root.ReadFile(name)
		existed := rerr == nil
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return fail(fmt.Errorf("replay workspace: %s: %w", o.ch, rerr))
		}
		restore := func() {
			if existed {
				_ = root.WriteFile(name, old, 0o644) // best effort: the error that made us undo is the one reported
			} else {
				_ = root.Remove(name)
			}
		}
		if o.content == nil {
			if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fail(fmt.Errorf("replay workspace: remove %s: %w", o.ch, err))
			}
			undo = append(undo, restore)
			p.Removed = append(p.Removed, o.ch)
			continue
		}
		if d := path.Dir(o.ch); d != "." {
			made, err := mkdirs(root, d)
			undo = append(undo, made...)
			if err != nil {
				return fail(fmt.Errorf("replay workspace: %s: %w", o.ch, err))
			}
		}
		if err := root.WriteFile(name, o.content, 0o644); err != nil {
			return fail(fmt.Errorf("replay workspace: %s: %w", o.ch, err))
		}
		undo = append(undo, restore)
		p.Written = append(p.Written, o.ch)
	}
	return p, nil
}

// mkdirs makes the folders of d that do not exist, and returns how to
// remove each one made.
func mkdirs(root *os.Root, d string) ([]func(), error) {
	var made []func()
	parts := strings.Split(d, "/")
	for i := range parts {
		sub := filepath.FromSlash(strings.Join(parts[:i+1], "/"))
		if _, err := root.Lstat(sub); err == nil {
			continue
		}
		if err := root.Mkdir(sub, 0o755); err != nil {
			return made, err
		}
		made = append(made, func() { _ = root.Remove(sub) })
	}
	return made, nil
}

// checkOnDisk refuses a path that, in the folder as it is, passes through
// a link or a file, or names a folder or a link: writing there would go
// elsewhere than the recording says (os.Root would refuse a link that
// leads out, but only when it came to it, after earlier writes).
func checkOnDisk(root *os.Root, p string) error {
	parts := strings.Split(p, "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		fi, err := root.Lstat(filepath.FromSlash(sub))
		if errors.Is(err, fs.ErrNotExist) {
			return nil // nothing below it exists either
		}
		if err != nil {
			return fmt.Errorf("replay workspace: %s: %w", sub, err)
		}
		last := i == len(parts)-1
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return refused("%s is a link in the folder: the recording's %s is not written through it", sub, p)
		case !last && !fi.IsDir():
			return refused("%s is a file in the folder, and the recording has %s under it", sub, p)
		case last && !fi.Mode().IsRegular():
			return refused("%s is not a plain file in the folder: the recording's content for it is not written", p)
		}
	}
	return nil
}

func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more", n)
}

// checkPath refuses a path from a recording that a replay must not write
// (with content, when it writes one): anything but a plain relative path
// inside the folder; any path through a .git folder or file (letter case
// aside, as a case-insensitive file system reads it); and a HEAD file git
// would read as a repository's, which with objects/ and refs/ beside it
// makes git take the folder for a repository, whose config may name
// programs to run. Steward's own journal records neither (its file tools
// and watcher skip .git), so such a change comes from a crafted recording.
func checkPath(p string, content []byte) error {
	bad := func(why string) error {
		return refused("the recording changes %q, which %s: a replay writes nothing there", p, why)
	}
	switch {
	case p == "" || strings.ContainsRune(p, 0):
		return bad("is not a file name")
	case strings.Contains(p, `\`), strings.HasPrefix(p, "/"), len(p) >= 2 && p[1] == ':':
		return bad("is not a relative path")
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return bad("is not a plain path inside the folder")
	}
	if policy.InGitDir(p) { // the file tools' own test: any letter case, .git., GIT~1
		return bad("is inside a .git folder")
	}
	if strings.EqualFold(path.Base(p), "HEAD") && looksLikeHead(content) {
		return bad("git would read as a repository's HEAD")
	}
	return nil
}

// looksLikeHead is git's own test of a HEAD file (validate_headref): a
// symbolic ref to refs/, or an object id.
func looksLikeHead(b []byte) bool {
	s := strings.TrimSpace(string(b))
	if rest, ok := strings.CutPrefix(s, "ref:"); ok {
		return strings.HasPrefix(strings.TrimSpace(rest), "refs/")
	}
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return !bytes.ContainsFunc([]byte(s), func(r rune) bool { return !strings.ContainsRune("0123456789abcdefABCDEF", r) })
}
