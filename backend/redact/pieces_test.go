package redact_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/redact"
)

func TestPieces(t *testing.T) {
	t.Parallel()
	// A model streams a key over several deltas, a few bytes at a time.
	text := "Set OPENAI_API_KEY=" + openAIKey + " then run it; the server token is " + serverToken + "."
	var pieces []string
	for rest := text; rest != ""; {
		n := min(5, len(rest))
		pieces = append(pieces, rest[:n])
		rest = rest[n:]
	}
	r := redact.New(serverToken)
	got := r.Pieces("node n_1 deltas", pieces)
	if len(got) != len(pieces) {
		t.Fatalf("got %d pieces, want %d", len(got), len(pieces))
	}
	joined := strings.Join(got, "")
	if want := redact.New(serverToken).String("x", text); joined != want {
		t.Errorf("joined pieces = %q, want String of the joined text %q", joined, want)
	}
	for _, secret := range []string{openAIKey, serverToken} {
		if strings.Contains(joined, secret[:8]) {
			t.Errorf("part of a secret survived: %q", joined)
		}
	}
	want := []redact.Finding{
		{Kind: "api_key", Where: "node n_1 deltas", Count: 1},
		{Kind: "configured", Where: "node n_1 deltas", Count: 1},
	}
	if diff := cmp.Diff(want, r.Report()); diff != "" {
		t.Errorf("Report (-want +got):\n%s", diff)
	}

	plain := []string{"nothing ", "secret ", "here"}
	if got := r.Pieces("x", plain); &got[0] != &plain[0] || !slices.Equal(got, plain) {
		t.Errorf("Pieces(%q) = %q, want the same slice", plain, got)
	}
}
