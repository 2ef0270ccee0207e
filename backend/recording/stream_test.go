package recording_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"steward/backend/recording"
)

const (
	localSig   = 0x04034b50
	centralSig = 0x02014b50
)

// headerAt returns the offset of the local (central, with central set)
// header of the entry name in a zip written by Export.
func headerAt(t *testing.T, data []byte, name string, central bool) int {
	t.Helper()
	sig, fixed, nameLen := uint32(localSig), 30, 26
	if central {
		sig, fixed, nameLen = centralSig, 46, 28
	}
	for from := 0; ; {
		i := bytes.Index(data[from:], []byte(name))
		if i < 0 {
			t.Fatalf("no %s header of %s", map[bool]string{false: "local", true: "central"}[central], name)
		}
		i += from
		if h := i - fixed; h >= 0 && binary.LittleEndian.Uint32(data[h:]) == sig &&
			int(binary.LittleEndian.Uint16(data[h+nameLen:])) == len(name) {
			return h
		}
		from = i + 1
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Go's zip reader, like most, reads only the central directory. A file
// whose local headers (what a streaming unzip reads) say otherwise, or whose
// entries carry other times than the manifest's created_at, is refused.
func TestReadRefusesWhatAStreamingReaderSeesOtherwise(t *testing.T) {
	t.Parallel()
	src := script("r1", 40, 3)
	withArtifacts(t, src)
	valid, m := export(t, src, recording.ExportOptions{})
	const shot = "artifacts/shots/n2.png"
	tests := []struct {
		name   string
		damage func(t *testing.T, b []byte) []byte
		want   string
	}{
		{"another name in a local header", func(t *testing.T, b []byte) []byte {
			h := headerAt(t, b, shot, false)
			copy(b[h+30:], "../../../../../.bashrc") // as long as the name it replaces
			return b
		}, "entry " + shot + ": its local header names it ../../../../../.bashrc"},
		{"another method in a local header", func(t *testing.T, b []byte) []byte {
			h := headerAt(t, b, "events.jsonl", false)
			binary.LittleEndian.PutUint16(b[h+8:], zip.Store)
			return b
		}, "entry events.jsonl: its local header says compression method 0, the central directory 8"},
		{"another size in a local header", func(t *testing.T, b []byte) []byte {
			h := headerAt(t, b, "events.jsonl", false)
			binary.LittleEndian.PutUint32(b[h+22:], binary.LittleEndian.Uint32(b[h+22:])+1)
			return b
		}, "entry events.jsonl: its local header gives another CRC or size than the central directory"},
		{"data before the first entry", func(t *testing.T, b []byte) []byte {
			return append([]byte("#!/bin/sh\nexec something\n"), b...) // Go's reader skips a prefix
		}, "the zip does not start with its first entry"},
		{"an entry hidden before the central directory", func(t *testing.T, b []byte) []byte {
			return hideEntry(t, b, "notes.txt", []byte("run me"))
		}, "the zip holds data between its last entry and its central directory"},
		{"a time other than created_at", func(t *testing.T, b []byte) []byte {
			for _, central := range []bool{false, true} {
				h := headerAt(t, b, "manifest.json", central)
				at := h + 10 + 2*btoi(central) // the MS-DOS time field
				binary.LittleEndian.PutUint16(b[at:], binary.LittleEndian.Uint16(b[at:])+1)
			}
			return b
		}, "entry manifest.json: its time is not the manifest's created_at"},
		{"an extended timestamp other than created_at", func(t *testing.T, b []byte) []byte {
			for _, central := range []bool{false, true} {
				h := headerAt(t, b, "events.jsonl", central)
				fixed := 30
				if central {
					fixed = 46
				}
				at := h + fixed + len("events.jsonl") + 5 // id, size, flags, then the time
				binary.LittleEndian.PutUint32(b[at:], binary.LittleEndian.Uint32(b[at:])+3600)
			}
			return b
		}, "entry events.jsonl: its extended timestamp is not the manifest's created_at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := tt.damage(t, bytes.Clone(valid))
			_, err := recording.Read(bytes.NewReader(data), int64(len(data)), recording.Limits{})
			switch {
			case err == nil:
				t.Fatal("read a recording whose zip says two things")
			case !errors.Is(err, recording.ErrInvalid):
				t.Errorf("error %q does not wrap ErrInvalid", err)
			case !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %q, want it to say %q", err, tt.want)
			}
		})
	}

	// Another zip writer's file reads when it keeps the rules: here Go's
	// own, which puts sizes and CRC in data descriptors after each entry.
	t.Run("repacked with data descriptors", func(t *testing.T) {
		t.Parallel()
		ents := unpack(t, valid)
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, e := range ents {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: time.UnixMilli(m.CreatedAt).UTC()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(e.body); err != nil {
				t.Fatal(err)
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := recording.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), recording.Limits{}); err != nil {
			t.Errorf("a repacked recording: %v", err)
		}
	})
}

// hideEntry puts a stored entry before the central directory of b and
// moves the directory's offset past it, leaving the directory unchanged: a
// reader of the central directory does not see the entry, a streaming one
// does.
func hideEntry(t *testing.T, b []byte, name string, body []byte) []byte {
	t.Helper()
	eocd := len(b) - 22 // Export writes no archive comment
	if binary.LittleEndian.Uint32(b[eocd:]) != 0x06054b50 {
		t.Fatal("no end of central directory record where expected")
	}
	cd := int(binary.LittleEndian.Uint32(b[eocd+16:]))
	var h bytes.Buffer
	for _, v := range []any{uint32(localSig), uint16(20), uint16(0), uint16(zip.Store), uint16(0), uint16(0),
		uint32(0), uint32(len(body)), uint32(len(body)), uint16(len(name)), uint16(0)} {
		if err := binary.Write(&h, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	h.WriteString(name)
	h.Write(body)
	out := append(append(append([]byte{}, b[:cd]...), h.Bytes()...), b[cd:]...)
	binary.LittleEndian.PutUint32(out[len(out)-22+16:], uint32(cd+h.Len()))
	return out
}

// The manifest's created_at the test reads is the one Export wrote.
func TestExportTimesAreCreatedAt(t *testing.T) {
	t.Parallel()
	data, m := export(t, script("r1", 5, 1), recording.ExportOptions{})
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var head struct {
		CreatedAt int64 `json:"created_at"`
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if err := json.NewDecoder(rc).Decode(&head); err != nil || head.CreatedAt != m.CreatedAt {
		t.Fatalf("manifest created_at %d (%v), Export said %d", head.CreatedAt, err, m.CreatedAt)
	}
	for _, f := range zr.File {
		if !f.Modified.Equal(time.UnixMilli(m.CreatedAt).Truncate(time.Second)) {
			t.Errorf("%s: modified %v, want %v", f.Name, f.Modified, time.UnixMilli(m.CreatedAt))
		}
	}
}
