package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
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

// PrepareWorkspace makes dir (created if needed) the workspace the
// recorded run started from, as far as the recording knows it: every file
// the run changed gets its content before the run's first change of it, or
// is removed when the run created it. Files the run only read are not in a
// recording: a replay with live tools that reads them needs a copy of the
// original workspace as dir. Writes are confined to dir.
func PrepareWorkspace(rec *Recorded, dir string) (Prepared, error) {
	var p Prepared
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return p, fmt.Errorf("replay workspace: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return p, fmt.Errorf("replay workspace: %w", err)
	}
	defer root.Close()
	for _, ch := range rec.firsts {
		name := filepath.FromSlash(ch.Path)
		switch {
		case ch.BeforeUnknown:
			p.Unknown = append(p.Unknown, ch.Path)
		case ch.Before == "":
			if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return p, fmt.Errorf("replay workspace: remove %s: %w", ch.Path, err)
			}
			p.Removed = append(p.Removed, ch.Path)
		default:
			b, ok := rec.blobs[ch.Before]
			if !ok {
				p.Unknown = append(p.Unknown, ch.Path)
				continue
			}
			if d := path.Dir(ch.Path); d != "." {
				if err := root.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
					return p, fmt.Errorf("replay workspace: %s: %w", ch.Path, err)
				}
			}
			if err := root.WriteFile(name, b, 0o644); err != nil {
				return p, fmt.Errorf("replay workspace: %s: %w", ch.Path, err)
			}
			p.Written = append(p.Written, ch.Path)
		}
	}
	return p, nil
}
