package redact

import "bytes"

// binarySniffLen is how much of a file is looked at to call it binary, as
// git does: a NUL byte in the first 8000 bytes.
const binarySniffLen = 8000

// Bytes is String for file contents. A text file goes through String (and
// comes back as b itself when nothing was found). A binary file is not
// searched for patterns, which would mangle it: only the configured values
// are looked for, as raw bytes, and each is overwritten in place by as many
// '*' so that the file keeps its size and layout; they are counted as
// KindBinary ("skipped binary"). b is never modified: a changed file is a
// copy.
func (r *Redactor) Bytes(where string, b []byte) []byte {
	if !isBinary(b) {
		s := string(b)
		out, t := r.redact(s, nil)
		if t.empty() {
			return b
		}
		r.record(where, &t)
		return []byte(out)
	}
	var t tally
	out := b
	for _, v := range r.raw {
		for off := 0; ; {
			i := bytes.Index(out[off:], []byte(v))
			if i < 0 {
				break
			}
			if t.empty() {
				out = bytes.Clone(b)
			}
			i += off
			for j := i; j < i+len(v); j++ {
				out[j] = '*'
			}
			t[kBinary]++
			off = i + len(v)
		}
	}
	r.record(where, &t)
	return out
}

func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), binarySniffLen)], 0) >= 0
}
