package recording

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"

	"steward/backend/event"
)

// maxManifest bounds manifest.json whatever the limits: it lists one part a
// line, some 150 bytes each, and 100,000 entries fit in 16 MiB.
const maxManifest = 64 << 20

// Read opens and verifies a recording of size bytes. It checks, and refuses
// with an error wrapping ErrInvalid on the first fault: the zip structure
// (a truncated file is refused); manifest.json first, of a known format and
// version; every entry's name (no path that escapes, no link, no directory,
// no duplicate); every part listed with its size and SHA-256, matching while
// the entry is decompressed, under l's bounds whatever the headers claim; no
// entry that is not listed; events decodable, with dense seqs from 1, one
// run, run.created first; blob names that are the SHA-256 of their
// contents, each named by a file.changed event; artifacts announced by
// artifact.created events; and that a reader of the zip from its first byte
// (a streaming unzip) sees the same entries, under the same names, as the
// central directory says, each with the manifest's created_at as its time
// (checkLocal). Zero fields of l take DefaultLimits. Nothing is written
// anywhere.
func Read(r io.ReaderAt, size int64, l Limits) (*Bundle, error) {
	l = l.withDefaults()
	zr, err := zip.NewReader(r, size)
	// ErrInsecurePath comes with a usable reader (GODEBUG zipinsecurepath=0):
	// the names are judged below, with a better message.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, invalid("not a Steward recording: the zip is truncated or damaged (%w)", err)
	}
	files := zr.File
	switch {
	case len(files) == 0:
		return nil, invalid("not a Steward recording: the zip is empty")
	case len(files) > l.MaxEntries:
		return nil, invalid("the recording has %d entries, more than the %d this Steward accepts", len(files), l.MaxEntries)
	}
	byName := make(map[string]*zip.File, len(files))
	for _, f := range files {
		if err := checkEntry(f); err != nil {
			return nil, err
		}
		if byName[f.Name] != nil {
			return nil, invalid("entry %s appears twice", show(f.Name))
		}
		byName[f.Name] = f
	}
	if files[0].Name != manifestName {
		if byName[manifestName] == nil {
			return nil, invalid("not a Steward recording: it has no %s", manifestName)
		}
		return nil, invalid("not a Steward recording: %s is not the first entry", manifestName)
	}
	m, err := readManifest(files[0], l)
	if err != nil {
		return nil, err
	}
	parts, err := checkParts(m, l)
	if err != nil {
		return nil, err
	}
	for _, f := range files[1:] {
		if _, ok := parts[f.Name]; !ok {
			return nil, invalid("entry %s is not listed in the manifest", show(f.Name))
		}
	}
	for _, p := range m.Parts {
		if byName[p.Name] == nil {
			return nil, invalid("missing part %s: listed in the manifest but not in the zip", p.Name)
		}
	}

	b := &Bundle{Manifest: m, Blobs: map[string][]byte{}, files: map[string]artifactEntry{}}
	if b.Events, err = readEvents(byName[eventsName], parts[eventsName], m, l); err != nil {
		return nil, err
	}
	named, announced, err := references(b.Events)
	if err != nil {
		return nil, err
	}
	for _, p := range m.Parts {
		f := byName[p.Name]
		switch {
		case strings.HasPrefix(p.Name, blobsDir):
			sum := strings.TrimPrefix(p.Name, blobsDir)
			if !named[sum] {
				return nil, invalid("%s is not named by any file.changed event", p.Name)
			}
			// The checksum verified on reading is the name: the content is
			// the one the events mean.
			if b.Blobs[sum], err = readAll(f, p); err != nil {
				return nil, err
			}
		case strings.HasPrefix(p.Name, artifactsDir):
			name := strings.TrimPrefix(p.Name, artifactsDir)
			if !announced[name] {
				return nil, invalid("%s is not announced by any artifact.created event", p.Name)
			}
			if err := verifyPart(f, p); err != nil {
				return nil, err
			}
			b.files[name] = artifactEntry{f: f, part: p}
			b.Artifacts = append(b.Artifacts, name)
		}
	}
	slices.Sort(b.Artifacts)
	// Last, so that what is wrong with the contents is said first; nothing
	// is written before Read returns either way.
	if err := checkLocal(r, files, m.CreatedAt); err != nil {
		return nil, err
	}
	return b, nil
}

// checkEntry refuses an entry that is not a plain file with a safe name.
func checkEntry(f *zip.File) error {
	name := f.Name
	if strings.HasSuffix(name, "/") && checkName(strings.TrimSuffix(name, "/")) == nil {
		return invalid("entry %s is a directory: a recording holds files only", show(name))
	}
	if err := checkName(name); err != nil {
		return err
	}
	switch mode := f.Mode(); {
	case mode&fs.ModeSymlink != 0:
		return invalid("entry %s is a symbolic link: a recording holds files only", show(name))
	case !mode.IsRegular():
		return invalid("entry %s is not a regular file", show(name))
	case f.Flags&0x1 != 0:
		return invalid("entry %s is encrypted", show(name))
	case f.Method != zip.Store && f.Method != zip.Deflate:
		return invalid("entry %s uses compression method %d: a recording uses Store or Deflate", show(name), f.Method)
	}
	return nil
}

// readManifest reads and decodes manifest.json, judging the format and
// version before anything else so that a newer file says so plainly.
func readManifest(f *zip.File, l Limits) (Manifest, error) {
	limit := min(l.MaxEntryBytes, maxManifest)
	if f.UncompressedSize64 > uint64(limit) {
		return Manifest{}, invalid("%s: larger than %s", manifestName, sizeText(limit))
	}
	data, err := readAll(f, Part{Name: manifestName, Size: int64(f.UncompressedSize64)})
	if err != nil {
		return Manifest{}, err
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Manifest{}, invalid("not a Steward recording: %s is not a JSON manifest (%w)", manifestName, err)
	}
	if head.Format != Format {
		return Manifest{}, invalid("not a Steward recording: %s says format %q, not %q", manifestName, head.Format, Format)
	}
	if head.Version != Version {
		return Manifest{}, invalid("unknown recording version %d: this Steward reads version %d", head.Version, Version)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, invalid("%s: %w", manifestName, err)
	}
	if m.Run.ID == "" {
		return Manifest{}, invalid("%s: the run has no id", manifestName)
	}
	if len(m.Agent) > 0 {
		// The manifest is indented for people; the snapshot is handed on
		// compact, as Export had it.
		var c bytes.Buffer
		if err := json.Compact(&c, m.Agent); err != nil {
			return Manifest{}, invalid("%s: agent: %w", manifestName, err)
		}
		m.Agent = c.Bytes()
	}
	return m, nil
}

// checkParts judges the manifest's list of parts before any part is read:
// names, kinds, checksum syntax and sizes within l.
func checkParts(m Manifest, l Limits) (map[string]Part, error) {
	parts := make(map[string]Part, len(m.Parts))
	var total int64
	for _, p := range m.Parts {
		if err := checkName(p.Name); err != nil {
			return nil, err
		}
		switch {
		case p.Name == manifestName:
			return nil, invalid("%s lists itself as a part", manifestName)
		case p.Name == eventsName:
		case strings.HasPrefix(p.Name, blobsDir):
			if sum := strings.TrimPrefix(p.Name, blobsDir); !isSum(sum) || sum != p.SHA256 {
				return nil, invalid("%s: a blob's name must be the SHA-256 of its content", p.Name)
			}
		case strings.HasPrefix(p.Name, artifactsDir) && len(p.Name) > len(artifactsDir):
		default:
			return nil, invalid("entry %s is not a part of a recording (events.jsonl, blobs/ and artifacts/ are)", p.Name)
		}
		if _, dup := parts[p.Name]; dup {
			return nil, invalid("%s lists %s twice", manifestName, p.Name)
		}
		switch {
		case !isSum(p.SHA256):
			return nil, invalid("%s: checksum %q is not a SHA-256 in lower-case hex", p.Name, p.SHA256)
		case p.Size < 0:
			return nil, invalid("%s: negative size %d", p.Name, p.Size)
		case p.Size > l.MaxEntryBytes:
			return nil, invalid("%s: larger than %s", p.Name, sizeText(l.MaxEntryBytes))
		}
		if total += p.Size; total > l.MaxTotalBytes {
			return nil, invalid("the recording holds more than %s", sizeText(l.MaxTotalBytes))
		}
		parts[p.Name] = p
	}
	if _, ok := parts[eventsName]; !ok {
		return nil, invalid("%s lists no %s", manifestName, eventsName)
	}
	return parts, nil
}

// readEvents decodes events.jsonl as it is decompressed, one line at a
// time (the log of a long run is tens of MiB as text: it is never held
// whole), and checks that it is one run's log: dense seqs from 1,
// run.created first. A line that is not an event is judged after the rest
// of the part is read, so that a damaged file is called damaged (its
// checksum) rather than a bad event.
func readEvents(f *zip.File, p Part, m Manifest, l Limits) ([]event.Event, error) {
	rc, err := openPart(f, p)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// The manifest's count sizes the slice, no larger than the part could
	// hold (a line of an event is some 50 bytes at the least): a lying
	// count costs what the part's own size would.
	const minLine = 50
	events := make([]event.Event, 0, max(0, min(m.Diagnostics.Events, l.MaxEvents, int(p.Size/minLine)+1)))
	br := bufio.NewReaderSize(rc, 64<<10)
	var long []byte // a line longer than br's buffer, put together
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, line...)
			continue
		}
		if err != nil && err != io.EOF {
			return nil, err // the verifier's: size, checksum or damage
		}
		if long != nil {
			line, long = append(long, line...), nil
		}
		if len(line) > 0 {
			if len(events) == l.MaxEvents {
				return nil, invalid("%s holds events past line %d, more than the %d this Steward accepts", eventsName, l.MaxEvents, l.MaxEvents)
			}
			e, perr := parseEvent(bytes.TrimSuffix(line, []byte("\n")), len(events)+1, m)
			if perr != nil {
				if _, derr := io.Copy(io.Discard, br); derr != nil {
					return nil, derr
				}
				return nil, perr
			}
			events = append(events, e)
		}
		if err == io.EOF {
			break
		}
	}
	switch {
	case len(events) == 0:
		return nil, invalid("%s is empty", eventsName)
	case m.Diagnostics.Events != len(events):
		return nil, invalid("%s says %d events, %s holds %d", manifestName, m.Diagnostics.Events, eventsName, len(events))
	}
	return events, nil
}

// parseEvent decodes line i of events.jsonl and checks it in its place.
func parseEvent(line []byte, i int, m Manifest) (event.Event, error) {
	var e event.Event
	if err := json.Unmarshal(line, &e); err != nil { // copies what it keeps: line is reused
		return e, invalid("%s line %d: not an event (%w)", eventsName, i, err)
	}
	switch {
	case e.Seq != int64(i):
		return e, invalid("%s line %d: seq %d where %d was expected (events out of order or missing)", eventsName, i, e.Seq, i)
	case i == 1 && e.Type != event.RunCreated:
		return e, invalid("%s: the first event is %q, not %s", eventsName, e.Type, event.RunCreated)
	case e.RunID != m.Run.ID:
		return e, invalid("%s line %d: an event of run %s in the recording of run %s", eventsName, i, e.RunID, m.Run.ID)
	case e.Type == "":
		return e, invalid("%s line %d: the event has no type", eventsName, i)
	case len(e.Data) == 0 || e.Data[0] != '{':
		return e, invalid("%s line %d: the event's data is not a JSON object", eventsName, i)
	}
	return e, nil
}

// references are the contents the events name (file.changed) and the
// artifacts they announce (artifact.created): the only blobs and artifacts
// a recording may hold.
func references(events []event.Event) (named, announced map[string]bool, err error) {
	named, announced = map[string]bool{}, map[string]bool{}
	for _, e := range events {
		switch e.Type {
		case event.FileChanged:
			var d event.FileChangedData
			if err := e.Decode(&d); err != nil {
				return nil, nil, invalid("%s line %d: %s: %w", eventsName, e.Seq, e.Type, err)
			}
			named[d.Before], named[d.After] = true, true
		case event.ArtifactCreated:
			var d event.ArtifactCreatedData
			if err := e.Decode(&d); err != nil {
				return nil, nil, invalid("%s line %d: %s: %w", eventsName, e.Seq, e.Type, err)
			}
			announced[d.Name] = true
		}
	}
	delete(named, "")
	return named, announced, nil
}
