package redact

import "strings"

// Pieces redacts a text that was recorded in pieces, such as the
// llm.delta events of one model call. A secret streamed over several
// pieces is whole in none of them, so redacting each alone would let a
// reader join it back together; Pieces looks for secrets in the joined
// text and removes every byte of each from whichever pieces hold it, the
// marker going into the piece where the secret starts. Joined, the result
// is String of the joined text; pieces itself is returned when nothing was
// found. It counts under where.
//
// Pieces is an addition to the recording contract, for an exporter that
// groups the deltas of a model call.
func (r *Redactor) Pieces(where string, pieces []string) []string {
	joined := strings.Join(pieces, "")
	spans := merge(joined, r.detect(joined, nil))
	if len(spans) == 0 {
		return pieces
	}
	var t tally
	for _, sp := range spans {
		t[sp.kind]++
	}
	r.record(where, &t)

	out := make([]string, len(pieces))
	ps := 0 // where pieces[i] starts in joined
	for i, p := range pieces {
		pe := ps + len(p)
		var b strings.Builder
		pos := ps
		for _, sp := range spans {
			if sp.end <= ps || sp.start >= pe {
				continue
			}
			if sp.start >= ps {
				b.WriteString(joined[pos:sp.start])
				writeMarker(&b, sp.kind)
			}
			pos = min(sp.end, pe)
		}
		b.WriteString(joined[pos:pe])
		out[i] = b.String()
		ps = pe
	}
	return out
}
