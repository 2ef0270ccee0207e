package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"steward/backend/osext"
)

// MaxBlob is the largest content the journal keeps. A change to a larger
// file is recorded by its hash only, and cannot be undone.
const MaxBlob = 16 << 20

// ErrNoBlob is returned for a content the journal does not hold (too large
// to keep, or removed from the data directory).
var ErrNoBlob = errors.New("content not kept")

// Blobs keeps file contents by their SHA-256, one file each, under a
// directory of the data directory: the same content is kept once, however
// many runs wrote it.
type Blobs struct{ dir string }

// NewBlobs keeps blobs under dir, creating it, or making it private when it
// exists (mode 0700: file contents of the person's workspaces live there).
// Each blob is a file of mode 0600.
func NewBlobs(dir string) (*Blobs, error) {
	if err := osext.MkdirPrivate(dir); err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	return &Blobs{dir: dir}, nil
}

// Sum is the name of content: its SHA-256 in hex.
func Sum(content []byte) string {
	s := sha256.Sum256(content)
	return hex.EncodeToString(s[:])
}

func (b *Blobs) path(sum string) string { return filepath.Join(b.dir, sum[:2], sum[2:]) }

// Put keeps content and returns its sum. A content larger than MaxBlob is
// not kept; its sum is returned all the same.
func (b *Blobs) Put(content []byte) (string, error) {
	sum := Sum(content)
	if len(content) > MaxBlob {
		return sum, nil
	}
	p := b.path(sum)
	if _, err := os.Stat(p); err == nil {
		return sum, nil // kept already: contents never change under a sum
	}
	if err := os.MkdirAll(filepath.Dir(p), osext.DirMode); err != nil {
		return "", fmt.Errorf("keep blob: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*") // mode 0600
	if err != nil {
		return "", fmt.Errorf("keep blob: %w", err)
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p) // whole or absent, never half written
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("keep blob: %w", err)
	}
	return sum, nil
}

// Get returns the content named sum, or ErrNoBlob.
func (b *Blobs) Get(sum string) ([]byte, error) {
	if len(sum) != sha256.Size*2 {
		return nil, fmt.Errorf("blob %q: %w", sum, ErrNoBlob)
	}
	if _, err := hex.DecodeString(sum); err != nil {
		return nil, fmt.Errorf("blob %q: %w", sum, ErrNoBlob)
	}
	c, err := os.ReadFile(b.path(sum))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s: %w", sum[:12], ErrNoBlob)
	}
	return c, err
}
