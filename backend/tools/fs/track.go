package fs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"

	"steward/backend/policy"
)

// MaxEditBytes caps the files the tools hold whole in memory to change them
// or to hand their content to tool.Files: edit_file and apply_patch refuse
// larger files, write_file refuses to replace one while the run is tracked,
// and read_file does not record reading one (so it cannot be replaced
// later). Source files are far smaller; a file this large is data, not
// something to edit by string replacement.
const MaxEditBytes = 16 << 20

// current is a file as it is on disk before a change.
type current struct {
	exists bool
	mode   fs.FileMode // permission bits to keep, or those of a new file
	data   []byte      // the content, when it was asked for and exists
}

// before is the content to record as the file's previous one: nil when the
// file did not exist.
func (c current) before() []byte {
	if !c.exists {
		return nil
	}
	if c.data == nil {
		return []byte{}
	}
	return c.data
}

// loadCurrent examines rel, a resolved name, through root and, when
// withData, reads its content. A missing file is no error: exists is false.
// Directories, special files and files over MaxEditBytes are failures the
// model sees.
func loadCurrent(root *os.Root, rel string, withData bool) (current, error) {
	if policy.InGitDir(rel) {
		// A write to .git/config or .git/hooks would run programs on the
		// next git command, and a .git file would point git at another
		// repository: an exec the person never approved as one. .GIT is
		// the same folder on a case-insensitive file system.
		return current{}, fail(CodeProtected, "%s is a .git folder or file, or inside one: the file tools do not change a repository's own files (its config and hooks could run programs); use the git tools", rel)
	}
	fi, err := root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return current{mode: newFileMode}, nil
	case err != nil:
		return current{}, classify(err, rel)
	case fi.IsDir():
		return current{}, fail(CodeIsDirectory, "%s is a directory; give the path of a file", rel)
	case !fi.Mode().IsRegular():
		return current{}, fail(CodeNotRegular, "%s is %s; only regular files can be changed", rel, kind(fi.Mode()))
	}
	cur := current{exists: true, mode: fi.Mode().Perm()}
	if !withData {
		return cur, nil
	}
	if fi.Size() > MaxEditBytes {
		return current{}, tooLargeToChange(rel, fi.Size())
	}
	// O_NONBLOCK: a named pipe swapped in since the Lstat must not block.
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return current{}, classify(err, rel)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return current{}, fmt.Errorf("read %s: %w", rel, err)
	} else if !fi.Mode().IsRegular() {
		return current{}, fail(CodeNotRegular, "%s is %s; only regular files can be changed", rel, kind(fi.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxEditBytes+1))
	if err != nil {
		return current{}, fmt.Errorf("read %s: %w", rel, err)
	}
	if len(data) > MaxEditBytes {
		return current{}, tooLargeToChange(rel, int64(len(data)))
	}
	cur.data = data
	return cur, nil
}

func tooLargeToChange(rel string, size int64) error {
	return fail(CodeTooLarge, "%s is %d bytes, over the %d MiB the file tools change; change it with a command instead", rel, size, MaxEditBytes>>20)
}

// checkWrite asks the run's record whether the call may replace rel as it
// is now; without a record every write is allowed.
func (c call) checkWrite(rel string, cur current) error {
	if c.files == nil {
		return nil
	}
	if err := c.files.CheckWrite(rel, cur.before(), cur.exists); err != nil {
		return &failure{code: CodeStaleRead, msg: err.Error()}
	}
	return nil
}

// changed reports a change the call made; after is nil for a deletion. A
// failure to record is the system's: the change is made, the journal lost it.
func (c call) changed(rel string, cur current, after []byte) error {
	if c.files == nil {
		return nil
	}
	if err := c.files.Changed(rel, cur.before(), after); err != nil {
		return fmt.Errorf("record the change of %s: %w", rel, err)
	}
	return nil
}

// makeParents creates the missing parent directories of rel and reports
// whether there were any.
func makeParents(root *os.Root, rel string) (bool, error) {
	dir := path.Dir(rel)
	if dir == "." {
		return false, nil
	}
	_, err := root.Stat(dir)
	made := errors.Is(err, fs.ErrNotExist)
	if err := root.MkdirAll(dir, newDirMode); err != nil {
		return false, classify(err, dir)
	}
	return made, nil
}
