// Package recording writes and reads Steward recordings: one .steward file
// (a zip) that holds a run's whole event log, the contents of the files it
// changed, its artifacts (screenshots, the browser video) and a manifest
// that names and checksums every other part. docs/recording-format.md is the
// format's specification for people who write tools against it;
// docs/recording.schema.json is the JSON Schema of the manifest.
//
// Guarantees. Export is deterministic: the same run, options and clock give
// the same bytes (entries in a fixed order, times from the manifest's
// created_at, the same compression). Nothing leaves through Export that the
// caller's redactor did not see, except pictures and videos, which are
// copied as they are and said to be so in the manifest. Read trusts nothing
// in the file: it checks the zip structure, the names, the sizes while it
// decompresses (not what the headers claim), every checksum and the shape of
// the log, refuses the file on the first fault with ErrInvalid and a message
// a person understands, and writes nothing anywhere.
package recording

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"steward/backend/redact"
)

// Format and Version identify the file. Version grows when a reader of an
// older version could misread a file, not when an optional field is added.
const (
	Format  = "steward-recording"
	Version = 1
)

// Names of the entries of a recording.
const (
	manifestName = "manifest.json"
	eventsName   = "events.jsonl"
	blobsDir     = "blobs/"
	artifactsDir = "artifacts/"
)

// Manifest is manifest.json, the first entry of a recording.
type Manifest struct {
	Format    string     `json:"format"`     // Format
	Version   int        `json:"version"`    // Version
	Steward   string     `json:"steward"`    // version of the exporting Steward
	CreatedAt int64      `json:"created_at"` // unix ms
	Run       RunSummary `json:"run"`
	// Agent is the agent snapshot the run was started with (run.created's
	// spec, or its agent reference when it has no spec), redacted.
	Agent       json.RawMessage  `json:"agent,omitempty"`
	Diagnostics Diagnostics      `json:"diagnostics"`
	Parts       []Part           `json:"parts"` // every other entry of the zip, in zip order
	Redactions  []redact.Finding `json:"redactions"`
}

// RunSummary is the run as the run list shows it, at the time of export.
type RunSummary struct {
	ID           string  `json:"id"`
	Status       string  `json:"status"`
	AgentName    string  `json:"agent_name"`
	Provider     string  `json:"provider"`
	Model        string  `json:"model"`
	Instructions string  `json:"instructions"`
	Workspace    string  `json:"workspace"`
	CreatedAt    int64   `json:"created_at"` // unix ms
	UpdatedAt    int64   `json:"updated_at"` // unix ms
	Steps        int     `json:"steps"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Events       int     `json:"events"`
	ForkedFrom   string  `json:"forked_from,omitempty"`
}

// Part names one entry of the zip with the size and SHA-256 (lower-case
// hex) of its uncompressed content.
type Part struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Diagnostics say where a recording was made and what it left out, so that
// a person reading a bug report knows what they are looking at.
type Diagnostics struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	GoVersion string `json:"go_version"`
	Events    int    `json:"events"`
	FirstSeq  int64  `json:"first_seq"`
	LastSeq   int64  `json:"last_seq"`
	Blobs     int    `json:"blobs"`
	Artifacts int    `json:"artifacts"`
	// MissingBlobs are contents named by file.changed events that the
	// journal did not keep (files too large, or removed): those changes
	// show without their content.
	MissingBlobs []string `json:"missing_blobs,omitempty"`
	// LeftOut are artifacts announced by the run that are not in the file.
	LeftOut []LeftOut `json:"left_out,omitempty"`
	// Notes are sentences for people: what is not redacted, what replaced
	// what.
	Notes []string `json:"notes,omitempty"`
}

// LeftOut is an artifact that is not in the recording, and why.
type LeftOut struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Limits bound what Read accepts, so that a hostile file cannot exhaust
// memory or disk. A zero field takes its default.
type Limits struct {
	MaxEntries    int   // entries in the zip, manifest included
	MaxEntryBytes int64 // uncompressed bytes of one entry
	MaxTotalBytes int64 // uncompressed bytes of all entries
	MaxEvents     int   // lines of events.jsonl
}

// DefaultLimits are generous for a real run (a long run has some tens of
// thousands of events; a browser video a few hundred MiB) and small enough
// for a desktop to hold.
func DefaultLimits() Limits {
	return Limits{
		MaxEntries:    100_000,
		MaxEntryBytes: 512 << 20,
		MaxTotalBytes: 2 << 30,
		MaxEvents:     5_000_000,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxEntryBytes <= 0 {
		l.MaxEntryBytes = d.MaxEntryBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = d.MaxTotalBytes
	}
	if l.MaxEvents <= 0 {
		l.MaxEvents = d.MaxEvents
	}
	return l
}

// checkName returns why name cannot be the name of an entry or an artifact:
// it must be a clean, relative, slash-separated path that stays inside the
// recording wherever it is extracted, on any system.
func checkName(name string) error {
	switch {
	case name == "":
		return invalid("an entry has an empty name")
	case !utf8.ValidString(name):
		return invalid("entry %s: name is not UTF-8", show(name))
	case strings.ContainsFunc(name, unicode.IsControl):
		return invalid("entry %s: name holds control characters", show(name))
	// A backslash is a separator on Windows, and a drive letter or a
	// leading slash makes a path absolute: all of them can lead out.
	case strings.Contains(name, `\`), strings.HasPrefix(name, "/"), hasDrive(name):
		return invalid("entry %s escapes the recording", show(name))
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return invalid("entry %s escapes the recording", show(name))
		}
	}
	if path.Clean(name) != name {
		return invalid("entry %s is not a plain relative path", show(name))
	}
	return nil
}

func hasDrive(name string) bool {
	return len(name) >= 2 && name[1] == ':' && ('a' <= name[0]|0x20 && name[0]|0x20 <= 'z')
}

// show prints a name from a file as it is when it is plain text, quoted
// when it holds anything a terminal could misread.
func show(name string) string {
	for _, r := range name {
		if !unicode.IsPrint(r) || r == utf8.RuneError {
			return strconv.Quote(name)
		}
	}
	return name
}

// isSum reports whether s is a SHA-256 in lower-case hex, as blob names and
// part checksums are.
func isSum(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// sizeText says a byte count the way a person reads it in a message.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
