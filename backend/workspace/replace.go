package workspace

import (
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
)

// The name of a write's temporary file: TempPrefix, random letters,
// TempSuffix, next to the file it replaces.
const (
	TempPrefix = ".steward-"
	TempSuffix = ".tmp"
)

// IsTemp reports whether name is a temporary file of a write in progress,
// or one left by a crash: listings, searches and the watcher skip them.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, TempPrefix) && strings.HasSuffix(name, TempSuffix)
}

// Replace writes data to a new file next to name and renames it over name,
// so that readers see the old content or the new, never a mix; a failed
// write leaves no temporary file. A hard link to the old file keeps the old
// content. keepMode sets mode exactly, past the umask, for a file being
// replaced.
func Replace(root *os.Root, name string, data []byte, mode fs.FileMode, keepMode bool) (err error) {
	tmp := path.Join(path.Dir(name), TempPrefix+rand.Text()[:12]+TempSuffix)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, root.Remove(tmp))
		}
	}()
	// Chmod on the descriptor, which cannot be redirected through a symlink.
	if keepMode {
		if err := f.Chmod(mode); err != nil {
			return errors.Join(err, f.Close())
		}
	}
	if _, err := f.Write(data); err != nil {
		return errors.Join(err, f.Close())
	}
	// Sync before the rename, or a crash can leave the new name on an empty
	// file.
	if err := f.Sync(); err != nil {
		return errors.Join(err, f.Close())
	}
	if err := f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, name)
}
