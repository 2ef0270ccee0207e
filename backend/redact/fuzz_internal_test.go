package redact

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzQuoting checks the hand-written JSON string codec against
// encoding/json: appendQuoted must produce what json.Unmarshal reads back
// as the same text, and unquote must read what json.Marshal writes.
func FuzzQuoting(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c\n\t\r\b\f", "<&>", "é😀\u2028\u2029", "\x00\x1f", "\xff bad utf8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := appendQuoted(nil, s)
		var back string
		if err := json.Unmarshal(q, &back); err != nil {
			t.Fatalf("appendQuoted(%q) = %s, not JSON: %v", s, q, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("appendQuoted(%q) reads back as %q", s, back)
		}
		m, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if err := json.Unmarshal(m, &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := unquote(string(m[1 : len(m)-1])); !ok || got != want {
			t.Fatalf("unquote(%s) = %q, %v; want %q", m, got, ok, want)
		}
	})
}

// FuzzUnquoteEscapes feeds unquote escape sequences json.Marshal never
// writes (\/, \u escapes of anything, lone and paired surrogates).
func FuzzUnquoteEscapes(f *testing.F) {
	for _, s := range []string{`\/`, `\u0041`, `\ud83d\ude00`, `\ud83d`, `\ude00x`, `\ud83d\u0041`, `a\u00e9b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var want string
		err := json.Unmarshal([]byte(`"`+body+`"`), &want)
		got, ok := unquote(body)
		if err != nil || !utf8.ValidString(body) {
			// Not a JSON string body (walk only unquotes valid ones), or
			// one with bytes that are not UTF-8, which encoding/json turns
			// into U+FFFD and unquote keeps: detection does not care, and
			// appendQuoted replaces them when a value is rewritten.
			return
		}
		if !ok || got != want {
			t.Fatalf("unquote(%q) = %q, %v; want %q", body, got, ok, want)
		}
	})
}
