package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Bounds of a copy of a workspace (CopyTree): a fork into a copy is meant
// for a project's folder, not a disk; a larger folder is refused before
// anything is written, so a person never waits on a copy that fills the
// disk.
const (
	MaxCopyBytes = 1 << 30 // the sizes of the regular files, summed
	MaxCopyFiles = 100_000 // files, links and folders
)

// CopyLimits bound a CopyTree; a zero field takes MaxCopyBytes or
// MaxCopyFiles.
type CopyLimits struct {
	Bytes int64
	Files int
}

// CopyStats says what a CopyTree did: the files and links it copied, and
// the entries it skipped (neither a file, a link nor a folder: sockets,
// devices, pipes).
type CopyStats struct {
	Copied, Skipped int
	Bytes           int64
}

// ErrCopyExists is returned by CopyTree when the destination exists: a
// copy never writes into a folder it did not make.
var ErrCopyExists = errors.New("the folder exists")

// CopyTree copies the folder src, everything in it (.git included: the copy
// is a workspace of its own, history and all), to dst, which must not
// exist and is created. Links are copied as links, never followed, so a
// link to a place outside src copies nothing from there. A folder over the
// limits is refused before anything is written, naming its size; a copy
// that fails half way is removed, so dst either holds the whole copy or
// does not exist.
func CopyTree(src, dst string, lim CopyLimits) (CopyStats, error) {
	if lim.Bytes <= 0 {
		lim.Bytes = MaxCopyBytes
	}
	if lim.Files <= 0 {
		lim.Files = MaxCopyFiles
	}
	if _, err := os.Lstat(dst); err == nil {
		return CopyStats{}, fmt.Errorf("copy to %s: %w: choose another name or remove it", dst, ErrCopyExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return CopyStats{}, fmt.Errorf("copy to %s: %w", dst, err)
	}
	var bytes int64
	entries := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == src {
			return nil
		}
		entries++
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			bytes += fi.Size()
		}
		if entries > lim.Files {
			return fmt.Errorf("%s holds more than %d files and folders: too many to copy for a fork (keep the files, or restore them, instead)", src, lim.Files)
		}
		if bytes > lim.Bytes {
			return fmt.Errorf("%s holds more than %s of files: too much to copy for a fork (keep the files, or restore them, instead)", src, sizeText(lim.Bytes))
		}
		return nil
	})
	if err != nil {
		return CopyStats{}, err
	}
	fi, err := os.Stat(src)
	if err != nil {
		return CopyStats{}, err
	}
	// Mkdir, not MkdirAll: it fails when dst appeared meanwhile, so the copy
	// never lands in someone else's folder.
	if err := os.Mkdir(dst, fi.Mode().Perm()|0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return CopyStats{}, fmt.Errorf("copy to %s: %w: choose another name or remove it", dst, ErrCopyExists)
		}
		return CopyStats{}, fmt.Errorf("copy to %s: %w", dst, err)
	}
	st, err := copyInto(src, dst)
	if err != nil {
		return CopyStats{}, errors.Join(fmt.Errorf("copy %s to %s: %w", src, dst, err), os.RemoveAll(dst))
	}
	return st, nil
}

// copyInto copies what src holds into the folder dst, which exists.
func copyInto(src, dst string) (CopyStats, error) {
	var st CopyStats
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == src {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch t := d.Type(); {
		case t.IsDir():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			// Owner-writable while the copy fills it; a read-only folder
			// would refuse its own contents.
			return os.Mkdir(to, fi.Mode().Perm()|0o700)
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			st.Copied++
			return os.Symlink(target, to)
		case t.IsRegular():
			n, err := copyFile(p, to)
			st.Copied++
			st.Bytes += n
			return err
		default:
			st.Skipped++
			return nil
		}
	})
	return st, err
}

func copyFile(from, to string) (int64, error) {
	in, err := os.Open(from)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// sizeText says n bytes in MiB, or in bytes when under one.
func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
