package recording

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"errors"
	"hash"
	"hash/crc32"
	"io"
)

// openPart opens the entry f as the part p describes it. The reader it
// returns decompresses the raw entry itself rather than trusting the zip
// package's checks: it stops one byte past p.Size (a zip bomb whose header
// lies is refused after that byte, not after gigabytes), and at the end
// checks the length, the CRC and, when p has one, the SHA-256. Every error
// it returns wraps ErrInvalid.
func openPart(f *zip.File, p Part) (io.ReadCloser, error) {
	if f.UncompressedSize64 != uint64(p.Size) {
		return nil, invalid("%s: the zip says %d bytes, the manifest %d (the file was changed or damaged)", p.Name, f.UncompressedSize64, p.Size)
	}
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, invalid("%s: the zip is damaged (%w)", p.Name, err)
	}
	v := &verifier{part: p, src: raw, left: p.Size, crc: crc32.NewIEEE(), wantCRC: f.CRC32}
	if p.SHA256 != "" {
		v.sha = sha256.New()
	}
	if f.Method == zip.Deflate {
		fr := flate.NewReader(raw)
		v.src, v.close = fr, fr.Close
	}
	return v, nil
}

// verifyPart reads the part p through to check it, keeping nothing.
func verifyPart(f *zip.File, p Part) error {
	rc, err := openPart(f, p)
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.Copy(io.Discard, rc)
	return err
}

// readAll is the verified content of the part p.
func readAll(f *zip.File, p Part) ([]byte, error) {
	rc, err := openPart(f, p)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// The size is checked while reading; the buffer starts no larger than
	// 64 MiB so that a lying size does not allocate on its own word.
	buf := bytes.NewBuffer(make([]byte, 0, min(p.Size+1, 64<<20)))
	if _, err := buf.ReadFrom(rc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// verifier is the reader of one part; see openPart.
type verifier struct {
	part    Part
	src     io.Reader
	close   func() error
	left    int64 // bytes still expected
	crc     hash.Hash32
	wantCRC uint32
	sha     hash.Hash // nil when the part has no SHA-256 (the manifest)
	err     error     // sticky: once refused, always refused
}

func (v *verifier) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	if int64(len(p)) > v.left+1 {
		p = p[:v.left+1] // one byte past the end is enough to see a lie
	}
	n, err := v.src.Read(p)
	v.crc.Write(p[:n])
	if v.sha != nil {
		v.sha.Write(p[:n])
	}
	v.left -= int64(n)
	switch {
	case v.left < 0:
		v.err = invalid("%s: holds more than the %s the zip and manifest declare (a zip bomb, or a damaged file)", v.part.Name, sizeText(v.part.Size))
		return 0, v.err
	case err == io.EOF:
		v.err = v.finish()
		if v.err == nil {
			v.err = io.EOF
		}
		return n, v.err
	case errors.Is(err, io.ErrUnexpectedEOF):
		v.err = invalid("%s: the zip is truncated or damaged (%w)", v.part.Name, err)
	case err != nil:
		var corrupt flate.CorruptInputError
		if errors.As(err, &corrupt) {
			v.err = invalid("%s: damaged compressed data (%w)", v.part.Name, err)
		} else {
			v.err = invalid("%s: read: %w", v.part.Name, err)
		}
	}
	if v.err != nil {
		return n, v.err
	}
	return n, nil
}

// finish checks what was read once the entry ended.
func (v *verifier) finish() error {
	switch {
	case v.left > 0:
		return invalid("%s: %d bytes short of the %d declared (the file is truncated or damaged)", v.part.Name, v.left, v.part.Size)
	case v.crc.Sum32() != v.wantCRC, v.sha != nil && !sumIs(v.sha, v.part.SHA256):
		return invalid("%s: checksum mismatch (the file was changed or damaged)", v.part.Name)
	}
	return nil
}

func (v *verifier) Close() error {
	if v.close != nil {
		return v.close()
	}
	return nil
}
