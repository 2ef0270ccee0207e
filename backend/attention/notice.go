package attention

import (
	"encoding/json"
	"fmt"
	"strings"

	"steward/backend/event"
	"steward/backend/store"
)

const (
	// runPrefix is how much of a run id a notice shows: "run_" and 6 of its
	// 16 random characters, as the UI shortens it (shortId in
	// frontend/src/ui/format.ts), so the notice names the run as the UI does.
	runPrefix = 10
	// questionRunes bounds the question quoted in a notice; notification
	// bubbles show two or three short lines.
	questionRunes = 100
)

// notice describes fresh, the interactions requested since the last read,
// newest first; nil when there are none. Several at once (the parallel calls
// of one model turn) make one notice about the first of them.
func notice(fresh []store.Interaction) *Notice {
	if len(fresh) == 0 {
		return nil
	}
	it := fresh[len(fresh)-1] // the first requested
	run := shortRun(it.RunID)
	var n Notice
	switch it.Kind {
	case event.InteractionApproval, "":
		n = Notice{Title: "Steward: approval needed", Body: it.Tool + " in run " + run}
	case event.InteractionQuestion:
		q := questionText(it.Question)
		if q == "" {
			q = it.Tool
		}
		n = Notice{Title: "Steward: question from an agent", Body: q + " (run " + run + ")"}
	default:
		n = Notice{Title: "Steward: waiting for you", Body: it.Kind + " in run " + run}
	}
	if more := len(fresh) - 1; more > 0 {
		n.Body += fmt.Sprintf(", and %d more", more)
	}
	return &n
}

func shortRun(id string) string {
	if len(id) > runPrefix {
		return id[:runPrefix]
	}
	return id
}

// questionText returns the text of a stored question (the JSON of an
// event.Question) on one line, shortened to questionRunes; "" when there is
// none or it does not decode (the notice then names the tool).
func questionText(raw string) string {
	if raw == "" {
		return ""
	}
	var q event.Question
	if err := json.Unmarshal([]byte(raw), &q); err != nil {
		return ""
	}
	text := strings.Join(strings.Fields(q.Text), " ")
	if r := []rune(text); len(r) > questionRunes {
		text = string(r[:questionRunes-1]) + "…"
	}
	return text
}
