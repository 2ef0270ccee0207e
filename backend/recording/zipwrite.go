package recording

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"time"
)

// entry is one entry of the zip being written, measured before anything is
// written: the manifest goes first and must already hold the size and
// checksum of every other entry.
type entry struct {
	name   string
	method uint16 // zip.Store or zip.Deflate
	size   int64  // uncompressed
	csize  int64  // as stored in the zip
	crc    uint32
	sum    string // SHA-256 hex of the uncompressed content
	// data is the entry as stored (compressed or not) when it is held in
	// memory; open streams it from disk otherwise (artifacts, which may be
	// videos of hundreds of MiB), and it is compressed again on the way.
	data []byte
	open func() (io.ReadCloser, error)
}

func (e *entry) part() Part { return Part{Name: e.name, Size: e.size, SHA256: e.sum} }

// packer compresses entries. Its one flate.Writer is reset for each entry:
// a new one costs some hundreds of KiB, which a run with many blobs would
// pay for each.
type packer struct {
	fw  *flate.Writer
	buf bytes.Buffer
}

// flateLevel is the default level: the best level saves a few per cent on
// an event log for about three times the time.
const flateLevel = flate.DefaultCompression

func newPacker() *packer {
	fw, err := flate.NewWriter(io.Discard, flateLevel)
	if err != nil {
		panic(err) // only for a bad level, which flateLevel is not
	}
	return &packer{fw: fw}
}

// memory measures content held in memory and compresses it when that makes
// it smaller (a tiny file can grow under Deflate: then it is stored).
func (p *packer) memory(name string, content []byte, compress bool) (*entry, error) {
	sum := sha256.Sum256(content)
	e := &entry{
		name: name, method: zip.Store, size: int64(len(content)), csize: int64(len(content)),
		crc: crc32.ChecksumIEEE(content), sum: hex.EncodeToString(sum[:]), data: content,
	}
	if !compress || len(content) == 0 {
		return e, nil
	}
	p.buf.Reset()
	p.fw.Reset(&p.buf)
	if _, err := p.fw.Write(content); err != nil {
		return nil, fmt.Errorf("compress %s: %w", name, err)
	}
	if err := p.fw.Close(); err != nil {
		return nil, fmt.Errorf("compress %s: %w", name, err)
	}
	if p.buf.Len() < len(content) {
		e.method, e.csize, e.data = zip.Deflate, int64(p.buf.Len()), bytes.Clone(p.buf.Bytes())
	}
	return e, nil
}

// encoded measures and compresses what write produces, as memory does
// with content it holds, but without holding it uncompressed: the event
// log of a long run is tens of MiB as text and about a thirtieth of that
// compressed. flate's output does not depend on how the content is cut
// into writes, so the bytes are memory's. When Deflate gains nothing (a
// tiny log) the content is made again, to be stored as it is.
func (p *packer) encoded(name string, write func(io.Writer) error) (*entry, error) {
	sha, crc := sha256.New(), crc32.NewIEEE()
	var z bytes.Buffer
	var n counter
	p.fw.Reset(&z)
	if err := write(io.MultiWriter(sha, crc, &n, p.fw)); err != nil {
		return nil, err
	}
	if err := p.fw.Close(); err != nil {
		return nil, fmt.Errorf("compress %s: %w", name, err)
	}
	e := &entry{name: name, method: zip.Deflate, size: int64(n), csize: int64(z.Len()), crc: crc.Sum32(),
		sum: hex.EncodeToString(sha.Sum(nil)), data: z.Bytes()}
	if z.Len() < int(n) {
		return e, nil
	}
	var raw bytes.Buffer
	if err := write(&raw); err != nil {
		return nil, err
	}
	e.method, e.csize, e.data = zip.Store, int64(raw.Len()), raw.Bytes()
	return e, nil
}

// stream measures an entry read from disk without holding it: size, CRC,
// SHA-256 and, when it is to be compressed, its compressed size (found by
// compressing it once into a counter; the copy compresses it again, to the
// same bytes).
func (p *packer) stream(name string, method uint16, open func() (io.ReadCloser, error)) (*entry, error) {
	f, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sha, crc := sha256.New(), crc32.NewIEEE()
	var counted counter
	sinks := []io.Writer{sha, crc}
	if method == zip.Deflate {
		p.fw.Reset(&counted)
		sinks = append(sinks, p.fw)
	}
	n, err := io.Copy(io.MultiWriter(sinks...), f)
	if err == nil && method == zip.Deflate {
		err = p.fw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	e := &entry{name: name, method: method, size: n, csize: n, crc: crc.Sum32(), sum: hex.EncodeToString(sha.Sum(nil)), open: open}
	if method == zip.Deflate {
		e.csize = int64(counted)
	}
	return e, nil
}

type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

// write adds e to zw with the times of mod. A streamed entry is checked on
// the way: if the file changed since it was measured, the recording would
// lie, so the export fails.
func (p *packer) write(zw *zip.Writer, e *entry, mod time.Time) error {
	w, err := zw.CreateRaw(fileHeader(e, mod))
	if err != nil {
		return fmt.Errorf("write %s: %w", e.name, err)
	}
	if e.open == nil {
		if _, err := w.Write(e.data); err != nil {
			return fmt.Errorf("write %s: %w", e.name, err)
		}
		return nil
	}
	f, err := e.open()
	if err != nil {
		return err
	}
	defer f.Close()
	sha := sha256.New()
	var dst io.Writer = w
	if e.method == zip.Deflate {
		p.fw.Reset(w)
		dst = p.fw
	}
	// One byte more than measured, to see a file that grew.
	n, err := io.Copy(io.MultiWriter(dst, sha), io.LimitReader(f, e.size+1))
	if err == nil && e.method == zip.Deflate {
		err = p.fw.Close()
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", e.name, err)
	}
	if n != e.size || !sumIs(sha, e.sum) {
		return fmt.Errorf("write %s: the file changed while it was exported", e.name)
	}
	return nil
}

func sumIs(h hash.Hash, want string) bool { return hex.EncodeToString(h.Sum(nil)) == want }

// fileHeader is the header of e as written by CreateRaw, which writes what
// it is given: so the versions, mode and times are set here, from mod only,
// never from the clock or the file on disk, for the same bytes each time.
func fileHeader(e *entry, mod time.Time) *zip.FileHeader {
	fh := &zip.FileHeader{
		Name:               e.name,
		Method:             e.method,
		CRC32:              e.crc,
		CompressedSize64:   uint64(e.csize),
		UncompressedSize64: uint64(e.size),
	}
	fh.SetMode(0o644)
	const zipVersion20 = 20 // Deflate; what every unzip reads
	fh.CreatorVersion = fh.CreatorVersion&0xff00 | zipVersion20
	fh.ReaderVersion = zipVersion20
	if !isASCII(e.name) {
		fh.Flags |= 0x800 // the name is UTF-8
	}
	fh.ModifiedDate, fh.ModifiedTime = msDosTime(mod)
	// The extended timestamp (0x5455) holds the time in UTC to the second;
	// the MS-DOS fields above have no zone and two-second steps.
	ext := make([]byte, 9)
	binary.LittleEndian.PutUint16(ext[0:], 0x5455)
	binary.LittleEndian.PutUint16(ext[2:], 5)
	ext[4] = 1 // modification time present
	binary.LittleEndian.PutUint32(ext[5:], uint32(max(mod.Unix(), 0)))
	fh.Extra = ext
	return fh
}

// msDosTime encodes t (in UTC) for a zip header; times before 1980, which
// the format cannot hold, become 1980-01-01.
func msDosTime(t time.Time) (date, clock uint16) {
	t = t.UTC()
	if t.Year() < 1980 {
		t = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	date = uint16(t.Day() + int(t.Month())<<5 + (t.Year()-1980)<<9)
	clock = uint16(t.Second()/2 + t.Minute()<<5 + t.Hour()<<11)
	return date, clock
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
