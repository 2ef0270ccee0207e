package recording

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"steward/backend/event"
	"steward/backend/tool"
	"steward/backend/workspace"
)

// blobs gathers the contents named by file.changed events (read from the
// original log as changes, out being the redacted log), redacts them and returns
// their entries sorted by name. A content the redactor changed is renamed
// to its new SHA-256, and the events of out that named it are rewritten,
// so that a blob's name stays the checksum of what the file holds.
func (x *exporter) blobs(changes []change, out []event.Event, diag *Diagnostics) ([]*entry, error) {
	renamed := map[string]string{} // original sum -> sum in the recording; "" when missing
	kept := map[string]*entry{}
	sizes := map[string]int64{}
	for _, c := range changes {
		i, e := c.i, c.ev
		var d, shown event.FileChangedData
		if err := e.Decode(&d); err != nil {
			return nil, fmt.Errorf("event %d %s: %w", e.Seq, e.Type, err)
		}
		// The report names the file as the redacted event does: a path
		// can hold a secret too.
		if err := out[i].Decode(&shown); err != nil {
			return nil, fmt.Errorf("event %d %s: %w", e.Seq, e.Type, err)
		}
		for _, sum := range []string{d.Before, d.After} {
			if _, seen := renamed[sum]; sum == "" || seen {
				continue
			}
			if err := x.ctx.Err(); err != nil {
				return nil, err
			}
			content, err := x.blob(sum)
			switch {
			case errors.Is(err, workspace.ErrNoBlob):
				renamed[sum] = ""
				diag.MissingBlobs = append(diag.MissingBlobs, sum)
				continue
			case err != nil:
				return nil, fmt.Errorf("blob %s: %w", sum, err)
			case blobSum(content) != sum:
				// Kept under a name that is not its checksum: damaged on
				// disk. Better without it than with a lie.
				renamed[sum] = ""
				diag.MissingBlobs = append(diag.MissingBlobs, sum)
				diag.Notes = append(diag.Notes, fmt.Sprintf("blob %s is damaged in the data directory and is left out", sum))
				continue
			}
			content = x.red.bytes(fmt.Sprintf("file %s (blob %s)", shown.Path, sum[:12]), content)
			now := blobSum(content)
			renamed[sum] = now
			sizes[now] = int64(len(content))
			if kept[now] == nil {
				ent, err := x.pk.memory(blobsDir+now, content, true)
				if err != nil {
					return nil, err
				}
				kept[now] = ent
			}
		}
		if err := rewriteChange(&out[i], d, renamed, sizes); err != nil {
			return nil, fmt.Errorf("event %d %s: %w", e.Seq, e.Type, err)
		}
	}
	slices.Sort(diag.MissingBlobs)
	names := slices.Sorted(maps.Keys(kept))
	ents := make([]*entry, 0, len(names))
	for _, n := range names {
		ents = append(ents, kept[n])
	}
	return ents, nil
}

// rewriteChange makes the redacted file.changed event e name the contents
// as the recording holds them. It leaves e alone when it already does (no
// redaction happened), so that an export without secrets keeps the log's
// bytes.
func rewriteChange(e *event.Event, orig event.FileChangedData, renamed map[string]string, sizes map[string]int64) error {
	name := func(sum string) string {
		if now := renamed[sum]; now != "" {
			return now
		}
		return sum // missing: the change keeps naming what the run saw
	}
	before, after := name(orig.Before), name(orig.After)
	var cur event.FileChangedData
	if err := json.Unmarshal(e.Data, &cur); err != nil {
		return err
	}
	size := orig.Size
	if after != orig.After {
		size = sizes[after]
	}
	if cur.Before == before && cur.After == after && cur.Size == size {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(e.Data, &fields); err != nil {
		return err
	}
	for k, v := range map[string]string{"before": before, "after": after} {
		if v == "" {
			delete(fields, k)
			continue
		}
		fields[k], _ = json.Marshal(v)
	}
	fields["size"], _ = json.Marshal(size)
	b, err := json.Marshal(fields) // sorted keys: the same bytes each time
	if err != nil {
		return err
	}
	e.Data = b
	return nil
}

// artifacts gathers the artifacts that out announces and returns their
// entries sorted by name, and a func that closes the folder they are
// streamed from once they are written. What is not taken is said in diag.
func (x *exporter) artifacts(dir string, out []event.Event, budget int64, diag *Diagnostics) ([]*entry, func(), error) {
	announced := map[string]event.ArtifactCreatedData{}
	for _, e := range out {
		if e.Type != event.ArtifactCreated {
			continue
		}
		var d event.ArtifactCreatedData
		if err := e.Decode(&d); err != nil {
			return nil, nil, fmt.Errorf("event %d %s: %w", e.Seq, e.Type, err)
		}
		announced[d.Name] = d
	}
	nothing := func() {}
	if len(announced) == 0 {
		return nil, nothing, nil
	}
	hasVideo := false
	for _, d := range announced {
		hasVideo = hasVideo || d.Kind == tool.ArtifactVideo
	}
	leave := func(name, reason string) { diag.LeftOut = append(diag.LeftOut, LeftOut{Name: name, Reason: reason}) }
	var root *os.Root
	if dir != "" {
		r, err := os.OpenRoot(dir)
		switch {
		case err == nil:
			root = r
		case !errors.Is(err, fs.ErrNotExist):
			return nil, nil, fmt.Errorf("artifacts folder: %w", err)
		}
	}
	closeRoot := nothing
	if root != nil {
		closeRoot = func() { root.Close() }
	}
	var ents []*entry
	media, unencoded := false, false
	for _, name := range slices.Sorted(maps.Keys(announced)) {
		d := announced[name]
		if d.Kind == tool.ArtifactFrames || strings.HasPrefix(name, "frames/") {
			if hasVideo {
				leave(name, "loose frames of the browser recording: the video holds them")
			} else {
				leave(name, "loose frames of the browser recording, not made into a video: a recording holds no loose frames")
				unencoded = true
			}
			continue
		}
		if err := checkName(name); err != nil {
			leave(name, "its name is not a plain relative path")
			continue
		}
		if root == nil {
			leave(name, "the run's artifacts folder is not kept")
			continue
		}
		ent, reason, err := x.artifact(root, name, d, budget)
		if err != nil {
			closeRoot()
			return nil, nil, err
		}
		if reason != "" {
			leave(name, reason)
			continue
		}
		budget -= ent.size
		media = media || isMedia(name, d.Mime)
		ents = append(ents, ent)
	}
	if unencoded {
		diag.Notes = append(diag.Notes, "the run's browser recording was not made into a video (no ffmpeg), so it is not in this recording")
	}
	if media {
		diag.Notes = append(diag.Notes, "pictures and videos are copied as they are: they are not redacted")
	}
	return ents, closeRoot, nil
}

// artifact measures one artifact, or says why it stays out.
func (x *exporter) artifact(root *os.Root, name string, d event.ArtifactCreatedData, budget int64) (*entry, string, error) {
	if err := x.ctx.Err(); err != nil {
		return nil, "", err
	}
	local := filepath.FromSlash(name)
	// Root.Stat follows a link only inside the folder: a link that leads
	// out is an error here, never a file of somewhere else.
	fi, err := root.Stat(local)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "the file is no longer in the artifacts folder", nil
	case err != nil:
		return nil, "the file cannot be read", nil
	case !fi.Mode().IsRegular():
		return nil, "not a regular file", nil
	case fi.Size() > DefaultLimits().MaxEntryBytes:
		return nil, "larger than " + sizeText(DefaultLimits().MaxEntryBytes), nil
	case fi.Size() > budget:
		return nil, "the recording would be larger than " + sizeText(DefaultLimits().MaxTotalBytes), nil
	}
	zipName := artifactsDir + name
	if isMedia(name, d.Mime) {
		method := uint16(zip.Deflate)
		if compressed(name, d.Mime) {
			method = zip.Store // Deflate would spend time to gain nothing
		}
		open := func() (io.ReadCloser, error) { return root.Open(local) }
		ent, err := x.pk.stream(zipName, method, open)
		if err != nil {
			return nil, "", fmt.Errorf("artifact %s: %w", name, err)
		}
		return ent, "", nil
	}
	// Anything else may hold text, so it is redacted like a blob: in
	// memory, which bounds what can be redacted.
	if fi.Size() > workspace.MaxBlob {
		return nil, "larger than " + sizeText(workspace.MaxBlob) + " and not a picture or video: too large to redact", nil
	}
	content, err := root.ReadFile(local)
	if err != nil {
		return nil, "", fmt.Errorf("artifact %s: %w", name, err)
	}
	content = x.red.bytes("artifact "+name, content)
	ent, err := x.pk.memory(zipName, content, true)
	if err != nil {
		return nil, "", err
	}
	return ent, "", nil
}

// isMedia reports whether an artifact is a picture, a video or a sound:
// copied as it is, never redacted.
func isMedia(name, mime string) bool {
	for _, p := range []string{"image/", "video/", "audio/"} {
		if strings.HasPrefix(mime, p) {
			return true
		}
	}
	return compressed(name, "")
}

// compressed reports whether a file is compressed already, so Deflate
// would only make it slower to write.
func compressed(name, mime string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".mp4", ".m4v", ".webm", ".mov", ".mkv", ".mp3", ".ogg", ".zip", ".gz":
		return true
	}
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "video/mp4", "video/webm":
		return true
	}
	return false
}

func blobSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
