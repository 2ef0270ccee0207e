package recording

import (
	"archive/zip"
	"encoding/binary"
	"io"
	"time"
)

// Signatures and sizes of the zip records a streaming reader meets.
const (
	localSig       = 0x04034b50 // local file header
	centralSig     = 0x02014b50 // central directory file header
	descriptorSig  = 0x08074b50 // data descriptor (its signature is optional)
	localHeaderLen = 30
	flagDescriptor = 0x8    // sizes and CRC follow the data
	extTimeID      = 0x5455 // the "extended timestamp" extra field
	maxZip32       = 0xffffffff
)

// checkLocal reads the zip from its first byte the way a streaming reader
// does (unzip from a pipe, Java's ZipInputStream, Python's stream readers):
// one local file header after the other, each followed by its data. Go's
// zip reader, like most, reads the central directory only and never looks
// at a local header's name, so a file whose local headers say other names
// (../../.bashrc), another compression or other sizes than its central
// directory would show one thing to Steward and another to the next tool
// that unpacks it. checkLocal refuses that: every local header must be at
// the place the central directory gives, in the same order, with the same
// name, method, CRC and sizes (in the header, or in its data descriptor);
// the central directory must follow the last entry, with nothing between
// (a hidden entry); and every entry's time, in the MS-DOS fields and in the
// extended timestamp, of both headers, must be the manifest's created_at,
// as docs/recording-format.md says every reader checks.
func checkLocal(r io.ReaderAt, files []*zip.File, created int64) error {
	mod := time.UnixMilli(created)
	wantDate, wantTime := msDosTime(mod)
	wantUnix := uint32(max(mod.Unix(), 0))
	off := int64(0)
	for _, f := range files {
		var h [localHeaderLen]byte
		if _, err := r.ReadAt(h[:], off); err != nil || binary.LittleEndian.Uint32(h[0:]) != localSig {
			if off == 0 {
				return invalid("not a Steward recording: the zip does not start with its first entry (data before it, or a damaged file)")
			}
			return invalid("entry %s: no local header where it should begin, right after the entry before it (the zip was changed, or damaged)", show(f.Name))
		}
		flags := binary.LittleEndian.Uint16(h[6:])
		method := binary.LittleEndian.Uint16(h[8:])
		dosTime, dosDate := binary.LittleEndian.Uint16(h[10:]), binary.LittleEndian.Uint16(h[12:])
		crc := binary.LittleEndian.Uint32(h[14:])
		csize, usize := binary.LittleEndian.Uint32(h[18:]), binary.LittleEndian.Uint32(h[22:])
		nameLen, extraLen := int64(binary.LittleEndian.Uint16(h[26:])), int64(binary.LittleEndian.Uint16(h[28:]))
		rest := make([]byte, nameLen+extraLen)
		if _, err := r.ReadAt(rest, off+localHeaderLen); err != nil {
			return invalid("entry %s: its local header is cut off (%w)", show(f.Name), err)
		}
		name, extra := string(rest[:nameLen]), rest[nameLen:]
		dataOff := off + localHeaderLen + nameLen + extraLen
		if name != f.Name {
			return invalid("entry %s: its local header names it %s: an unzip that reads the file from its start would see another file", show(f.Name), show(name))
		}
		if at, err := f.DataOffset(); err != nil || at != dataOff {
			return invalid("entry %s: the central directory places it elsewhere than the zip's own sequence of entries (the zip was changed, or damaged)", show(f.Name))
		}
		if method != f.Method {
			return invalid("entry %s: its local header says compression method %d, the central directory %d", show(f.Name), method, f.Method)
		}
		if f.CompressedSize64 >= maxZip32 || f.UncompressedSize64 >= maxZip32 {
			return invalid("entry %s needs Zip64: a recording never does", show(f.Name))
		}
		end := dataOff + int64(f.CompressedSize64)
		if flags&flagDescriptor == 0 {
			if crc != f.CRC32 || uint64(csize) != f.CompressedSize64 || uint64(usize) != f.UncompressedSize64 {
				return invalid("entry %s: its local header gives another CRC or size than the central directory", show(f.Name))
			}
		} else {
			var d [16]byte
			if _, err := r.ReadAt(d[:], end); err != nil {
				return invalid("entry %s: its data descriptor is cut off (%w)", show(f.Name), err)
			}
			fields := d[:12]
			if binary.LittleEndian.Uint32(d[0:]) == descriptorSig {
				fields = d[4:]
				end += 4
			}
			end += 12
			if binary.LittleEndian.Uint32(fields[0:]) != f.CRC32 || uint64(binary.LittleEndian.Uint32(fields[4:])) != f.CompressedSize64 ||
				uint64(binary.LittleEndian.Uint32(fields[8:])) != f.UncompressedSize64 {
				return invalid("entry %s: its data descriptor gives another CRC or size than the central directory", show(f.Name))
			}
		}
		local, lok := extTime(extra)
		central, cok := extTime(f.Extra)
		switch {
		case dosDate != wantDate || dosTime != wantTime || f.ModifiedDate != wantDate || f.ModifiedTime != wantTime:
			return invalid("entry %s: its time is not the manifest's created_at (%s): a recording's entries all carry that time", show(f.Name), mod.UTC().Format(time.RFC3339))
		case !lok || !cok:
			return invalid("entry %s has no extended timestamp (zip extra field 0x5455) holding the manifest's created_at", show(f.Name))
		case local != wantUnix || central != wantUnix:
			return invalid("entry %s: its extended timestamp is not the manifest's created_at (%s)", show(f.Name), mod.UTC().Format(time.RFC3339))
		}
		off = end
	}
	var sig [4]byte
	if _, err := r.ReadAt(sig[:], off); err != nil || binary.LittleEndian.Uint32(sig[:]) != centralSig {
		return invalid("the zip holds data between its last entry and its central directory: an unzip that reads the file from its start would take it for more entries")
	}
	return nil
}

// extTime returns the modification time of the extended timestamp extra
// field (0x5455) among extra's fields, if there is one.
func extTime(extra []byte) (uint32, bool) {
	for len(extra) >= 4 {
		id, n := binary.LittleEndian.Uint16(extra[0:]), int(binary.LittleEndian.Uint16(extra[2:]))
		if 4+n > len(extra) {
			return 0, false
		}
		body := extra[4 : 4+n]
		if id == extTimeID && n >= 5 && body[0]&1 != 0 {
			return binary.LittleEndian.Uint32(body[1:]), true
		}
		extra = extra[4+n:]
	}
	return 0, false
}
