package recording

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"steward/backend/event"
)

// Bundle is a recording that Read verified. It is held in memory except
// its artifacts, which may be large: they stay in the file, to be opened on
// demand with OpenArtifact or copied with WriteArtifacts, and are verified
// again as they are read. The io.ReaderAt given to Read must stay open
// while artifacts are read.
type Bundle struct {
	Manifest  Manifest
	Events    []event.Event
	Blobs     map[string][]byte // by SHA-256, every one verified
	Artifacts []string          // names, relative to the artifacts folder, sorted

	files map[string]artifactEntry // by artifact name
}

type artifactEntry struct {
	f    *zip.File
	part Part
}

// OpenArtifact opens the artifact name (one of b.Artifacts). Reading it
// checks its size and SHA-256 again: an error wrapping ErrInvalid means the
// file changed since Read. An unknown name is an error wrapping
// fs.ErrNotExist.
func (b *Bundle) OpenArtifact(name string) (io.ReadCloser, error) {
	e, ok := b.files[name]
	if !ok {
		return nil, fmt.Errorf("artifact %s: %w", name, fs.ErrNotExist)
	}
	return openPart(e.f, e.part)
}

// WriteArtifacts copies every artifact under dir (created if needed) at its
// name, replacing a file of the same name. Writes are confined to dir: no
// name or link inside it can lead out. Each file appears whole or not at
// all: it is written under a temporary name and renamed once verified.
// Folders are made 0700 and files 0600, like every artifact of a run.
func (b *Bundle) WriteArtifacts(dir string) error {
	if len(b.Artifacts) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("artifacts folder: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("artifacts folder: %w", err)
	}
	defer root.Close()
	for _, name := range b.Artifacts {
		if err := b.writeArtifact(root, name); err != nil {
			return fmt.Errorf("artifact %s: %w", name, err)
		}
	}
	return nil
}

func (b *Bundle) writeArtifact(root *os.Root, name string) error {
	local := filepath.FromSlash(name)
	if d := path.Dir(name); d != "." {
		if err := root.MkdirAll(filepath.FromSlash(d), 0o700); err != nil {
			return err
		}
	}
	src, err := b.OpenArtifact(name)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp := local + ".partial"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, local)
	}
	if err != nil {
		if rerr := root.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
		return err
	}
	return nil
}
