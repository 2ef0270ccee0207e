package recording_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"steward/backend/recording"
)

// rawEntry is an entry of a recording under repair or damage: write, when
// set, writes it in its own way (a lying header).
type rawEntry struct {
	name  string
	body  []byte
	write func(t *testing.T, zw *zip.Writer)
}

func unpack(t testing.TB, data []byte) []rawEntry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out []rawEntry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rawEntry{name: f.Name, body: b})
	}
	return out
}

func pack(t *testing.T, ents []rawEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range ents {
		if e.write != nil {
			e.write(t, zw)
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if len(e.body) == 0 {
			continue // a directory takes no data
		}
		if _, err := w.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// refresh edits the manifest (ents[0]) and then makes the size and checksum
// of each part it lists agree with the entries: a tamperer who knows the
// format.
func refresh(t *testing.T, ents []rawEntry, edit func(*recording.Manifest)) []rawEntry {
	t.Helper()
	return rewrite(t, ents, func(m *recording.Manifest) {
		edit(m)
		for i, p := range m.Parts {
			for _, e := range ents[1:] {
				if e.name == p.Name {
					m.Parts[i].Size, m.Parts[i].SHA256 = int64(len(e.body)), sum(e.body)
				}
			}
		}
	})
}

// rewrite edits the manifest and nothing else.
func rewrite(t *testing.T, ents []rawEntry, edit func(*recording.Manifest)) []rawEntry {
	t.Helper()
	var m recording.Manifest
	if err := json.Unmarshal(ents[0].body, &m); err != nil {
		t.Fatal(err)
	}
	edit(&m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	ents[0].body = b
	return ents
}

func find(ents []rawEntry, prefix string) int {
	return slices.IndexFunc(ents, func(e rawEntry) bool { return strings.HasPrefix(e.name, prefix) })
}

// bomb writes name as 8 MiB of zeros whose header, like the manifest,
// claims the size and CRC of body.
func bomb(name string, body []byte) func(t *testing.T, zw *zip.Writer) {
	return func(t *testing.T, zw *zip.Writer) {
		var c bytes.Buffer
		fw, _ := flate.NewWriter(&c, flate.BestCompression)
		fw.Write(make([]byte, 8<<20))
		fw.Close()
		w, err := zw.CreateRaw(&zip.FileHeader{
			Name: name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(body),
			CompressedSize64: uint64(c.Len()), UncompressedSize64: uint64(len(body)),
		})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(c.Bytes())
	}
}

func TestReadRefusesDamage(t *testing.T) {
	t.Parallel()
	src := script("r1", 300, 10)
	withArtifacts(t, src)
	valid, _ := export(t, src, recording.ExportOptions{})
	const tooLong = "fix the handlers"

	type damage func(t *testing.T, ents []rawEntry) []byte
	extra := func(name string) damage {
		return func(t *testing.T, ents []rawEntry) []byte {
			var body []byte
			if !strings.HasSuffix(name, "/") {
				body = []byte("x")
			}
			return pack(t, append(ents, rawEntry{name: name, body: body}))
		}
	}
	tests := []struct {
		name   string
		damage damage
		limits recording.Limits
		want   string
	}{
		{name: "bad checksum of the events", want: "events.jsonl: checksum mismatch (the file was changed or damaged)",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				i := find(ents, "events.jsonl")
				ents[i].body = bytes.Replace(ents[i].body, []byte(tooLong), []byte("fix the HANDLERS"), 1)
				return pack(t, ents)
			}},
		{name: "bad checksum of a blob", want: ": checksum mismatch (the file was changed or damaged)",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				i := find(ents, "blobs/")
				ents[i].body = bytes.Replace(ents[i].body, []byte("package src"), []byte("package SRC"), 1)
				return pack(t, ents)
			}},
		{name: "bad checksum of a picture", want: "artifacts/shots/n2.png: checksum mismatch",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				i := find(ents, "artifacts/shots/")
				ents[i].body[len(ents[i].body)-5] ^= 0xff
				return pack(t, ents)
			}},
		{name: "unknown version", want: "unknown recording version 7: this Steward reads version 1",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				return pack(t, refresh(t, ents, func(m *recording.Manifest) { m.Version = 7 }))
			}},
		{name: "another format", want: `not a Steward recording: manifest.json says format "other"`,
			damage: func(t *testing.T, ents []rawEntry) []byte {
				return pack(t, refresh(t, ents, func(m *recording.Manifest) { m.Format = "other" }))
			}},
		{name: "truncated zip", want: "not a Steward recording: the zip is truncated or damaged (zip: not a valid zip file)",
			damage: func(t *testing.T, ents []rawEntry) []byte { return valid[:len(valid)/2] }},
		{name: "end cut off", want: "not a Steward recording: the zip is truncated or damaged",
			damage: func(t *testing.T, ents []rawEntry) []byte { return valid[:len(valid)-10] }},
		{name: "not a zip", want: "not a Steward recording: the zip is truncated or damaged",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				return []byte("just some text, long enough to look like a file")
			}},
		{name: "zip bomb with a lying header", want: "holds more than the",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				i := find(ents, "blobs/")
				ents[i].write = bomb(ents[i].name, ents[i].body)
				return pack(t, ents)
			}},
		{name: "entry larger than allowed", limits: recording.Limits{MaxEntryBytes: 16 << 10}, want: "events.jsonl: larger than 16 KiB",
			damage: func(t *testing.T, ents []rawEntry) []byte { return valid }},
		{name: "part declared larger than 512 MiB", want: ": larger than 512 MiB",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				return pack(t, rewrite(t, ents, func(m *recording.Manifest) { m.Parts[1].Size = 600 << 20 }))
			}},
		{name: "recording larger than allowed", limits: recording.Limits{MaxTotalBytes: 300 << 10}, want: "the recording holds more than 300 KiB",
			damage: func(t *testing.T, ents []rawEntry) []byte { return valid }},
		{name: "too many entries", limits: recording.Limits{MaxEntries: 3}, want: "more than the 3 this Steward accepts",
			damage: func(t *testing.T, ents []rawEntry) []byte { return valid }},
		{name: "too many events", limits: recording.Limits{MaxEvents: 10}, want: "more than the 10 this Steward accepts",
			damage: func(t *testing.T, ents []rawEntry) []byte { return valid }},
		{name: "parent path", damage: extra("../x"), want: "entry ../x escapes the recording"},
		{name: "parent path inside", damage: extra("artifacts/../../x"), want: "entry artifacts/../../x escapes the recording"},
		{name: "absolute path", damage: extra("/etc/passwd"), want: "entry /etc/passwd escapes the recording"},
		{name: "backslashes", damage: extra(`artifacts\..\..\x`), want: `escapes the recording`},
		{name: "drive letter", damage: extra("C:/x"), want: "entry C:/x escapes the recording"},
		{name: "dot path", damage: extra("artifacts/./x"), want: "entry artifacts/./x is not a plain relative path"},
		{name: "control character", damage: extra("a\x1b[2Jb"), want: `entry "a\x1b[2Jb": name holds control characters`},
		{name: "directory", damage: extra("blobs/"), want: "entry blobs/ is a directory"},
		{name: "symbolic link", want: "entry artifacts/link is a symbolic link",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				return pack(t, append(ents, rawEntry{write: func(t *testing.T, zw *zip.Writer) {
					fh := &zip.FileHeader{Name: "artifacts/link"}
					fh.SetMode(fs.ModeSymlink | 0o777)
					w, _ := zw.CreateHeader(fh)
					w.Write([]byte("/etc/passwd"))
				}}))
			}},
		{name: "extra entry", damage: extra("notes.txt"), want: "entry notes.txt is not listed in the manifest"},
		{name: "duplicate entry", want: "entry events.jsonl appears twice",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				return pack(t, append(ents, ents[find(ents, "events.jsonl")]))
			}},
		{name: "missing part", want: "missing part blobs/",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				return pack(t, slices.Delete(ents, find(ents, "blobs/"), find(ents, "blobs/")+1))
			}},
		{name: "events out of order", want: "events.jsonl line 2: seq 3 where 2 was expected (events out of order or missing)",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				i := find(ents, "events.jsonl")
				lines := bytes.SplitAfter(ents[i].body, []byte("\n"))
				lines[1], lines[2] = lines[2], lines[1]
				ents[i].body = bytes.Join(lines, nil)
				return pack(t, refresh(t, ents, func(*recording.Manifest) {}))
			}},
		{name: "event of another run", want: "events.jsonl line 4: an event of run r2 in the recording of run r1",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				i := find(ents, "events.jsonl")
				lines := bytes.SplitAfter(ents[i].body, []byte("\n"))
				lines[3] = bytes.Replace(lines[3], []byte(`"run_id":"r1"`), []byte(`"run_id":"r2"`), 1)
				ents[i].body = bytes.Join(lines, nil)
				return pack(t, refresh(t, ents, func(*recording.Manifest) {}))
			}},
		{name: "manifest not first", want: "not a Steward recording: manifest.json is not the first entry",
			damage: func(t *testing.T, ents []rawEntry) []byte { return pack(t, append(ents[1:], ents[0])) }},
		{name: "no manifest", want: "not a Steward recording: it has no manifest.json",
			damage: func(t *testing.T, ents []rawEntry) []byte { return pack(t, ents[1:]) }},
		{name: "stray blob", want: "blobs/" + sum([]byte("x")) + " is not named by any file.changed event",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				ents = append(ents, rawEntry{name: "blobs/" + sum([]byte("x")), body: []byte("x")})
				return pack(t, refresh(t, ents, func(m *recording.Manifest) {
					m.Parts = append(m.Parts, recording.Part{Name: "blobs/" + sum([]byte("x"))})
				}))
			}},
		{name: "blob under another name", want: "a blob's name must be the SHA-256 of its content",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				i := find(ents, "blobs/")
				old := ents[i].name
				ents[i].name = "blobs/" + sum([]byte("other"))
				return pack(t, refresh(t, ents, func(m *recording.Manifest) {
					m.Parts[slices.IndexFunc(m.Parts, func(p recording.Part) bool { return p.Name == old })].Name = ents[i].name
				}))
			}},
		{name: "unannounced artifact", want: "artifacts/more.png is not announced by any artifact.created event",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				ents = append(ents, rawEntry{name: "artifacts/more.png", body: []byte("png")})
				return pack(t, refresh(t, ents, func(m *recording.Manifest) {
					m.Parts = append(m.Parts, recording.Part{Name: "artifacts/more.png"})
				}))
			}},
		{name: "size in the manifest differs from the zip", want: "events.jsonl: the zip says",
			damage: func(t *testing.T, ents []rawEntry) []byte {
				i := find(ents, "events.jsonl")
				ents[i].body = append(ents[i].body, '\n')
				return pack(t, ents)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := tt.damage(t, unpack(t, valid))
			_, err := recording.Read(bytes.NewReader(data), int64(len(data)), tt.limits)
			switch {
			case err == nil:
				t.Fatal("read a damaged recording")
			case !errors.Is(err, recording.ErrInvalid):
				t.Errorf("error %q does not wrap ErrInvalid", err)
			case !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %q, want it to say %q", err, tt.want)
			}
			t.Log(err)
		})
	}
}
