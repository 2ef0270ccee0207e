package redact

import (
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// variants returns the forms a configured value takes in text: as it is,
// escaped inside a JSON string (by Go; by encoders that escape "/", all of
// non-ASCII, or both, as PHP does), and percent-encoded in a URL query or
// path. JSON event data is decoded before it is searched; these catch the
// value in file contents and other text that still holds it escaped.
func variants(s string) []string {
	quoted := string(appendQuoted(nil, s))
	inner := quoted[1 : len(quoted)-1]
	slashed := strings.ReplaceAll(inner, "/", `\/`)
	vs := []string{s, inner, slashed, url.QueryEscape(s), url.PathEscape(s)}
	if !isASCII(s) {
		vs = append(vs, asciiEscaped(inner), asciiEscaped(slashed))
	}
	return vs
}

// asciiEscaped rewrites every non-ASCII rune of a JSON string body as
// \uXXXX (UTF-16), as Python's json.dumps does by default.
func asciiEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		if r > 0xFFFF {
			r -= 0x10000
			writeU(&b, 0xD800+(r>>10))
			writeU(&b, 0xDC00+(r&0x3FF))
			continue
		}
		writeU(&b, r)
	}
	return b.String()
}

func writeU(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hex[(r>>shift)&0xF])
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// needle is a configured value (or an escaped form of it) and the few
// bytes of it that are searched for: strings.Index skips ahead by the
// anchor's first byte, so an anchor starting with a rare byte (a digit, a
// capital, punctuation) is much faster to look for in prose than the value
// itself, which may well start with "s".
type needle struct {
	s      string
	at, to int  // the anchor is s[at:to]
	kind   kind // kConfigured, or kLearned
}

func newNeedle(s string) needle {
	const anchorLen = 4
	best := 0
	for i := 1; i+anchorLen <= len(s); i++ {
		if commonness(s[i]) < commonness(s[best]) {
			best = i
		}
	}
	return needle{s: s, at: best, to: min(best+anchorLen, len(s))}
}

// commonness ranks how often a byte occurs in text: white space and
// frequent lower-case letters most, then other letters, then digits,
// then the rest.
func commonness(c byte) int {
	switch {
	case c == ' ' || c == '\n' || strings.IndexByte("etaoinsrhl", c) >= 0:
		return 4
	case isLower(c):
		return 3
	case isUpper(c):
		return 2
	case isDigit(c):
		return 1
	}
	return 0
}

// findConfigured finds the configured values, each by its anchor.
func (r *Redactor) findConfigured(s string, spans []span) []span {
	for _, n := range r.needles {
		anchor := n.s[n.at:n.to]
		for off := n.at; off < len(s); {
			i := strings.Index(s[off:], anchor)
			if i < 0 {
				break
			}
			start := off + i - n.at
			if strings.HasPrefix(s[start:], n.s) {
				spans = append(spans, span{start, start + len(n.s), n.kind})
				off = start + len(n.s) + n.at
				continue
			}
			off += i + 1
		}
	}
	return spans
}

// keyShape matches the API keys whose prefix says what they are, at the
// start of the string it is given (a candidate found by findKeyShapes).
// Lengths are the shortest real keys have, a little under, so that a
// cut-off key is still caught.
var keyShape = regexp.MustCompile(`^(?:` +
	`sk-[A-Za-z0-9_-]{20,}` + // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-)
	`|gh[pousr]_[A-Za-z0-9]{30,}` + // GitHub tokens
	`|github_pat_[A-Za-z0-9_]{22,}` + // GitHub fine-grained tokens
	`|xox[abposr]-[A-Za-z0-9-]{10,}` + // Slack
	`|A(?:KIA|SIA)[0-9A-Z]{16}\b` + // AWS access key ids
	`|AIza[0-9A-Za-z_-]{35,}` + // Google API keys
	`|hf_[A-Za-z0-9]{30,}` + // Hugging Face
	`|glpat-[A-Za-z0-9_-]{20,}` + // GitLab
	`)`)

// findKeyShapes finds strings shaped like API keys. Rather than running
// keyShape over every string, it looks for the bytes every prefix holds
// ('-' or '_' at a known offset, or a capital A), checks the prefix by
// hand, and runs the regexp only there. A key must start a word (not
// "task-...", nor inside a base64 run) and mix two of lower case, upper
// case and digits, as random keys do, so that a slug like
// "sk-learn-tutorial-for-beginners" is left alone.
func findKeyShapes(s string, spans []span) []span {
	try := func(start int) int {
		if start < 0 || start > 0 && isWordChar(s[start-1]) {
			return -1
		}
		m := keyShape.FindStringIndex(s[start:])
		if m == nil || classes(s[start:start+m[1]]) < 2 {
			return -1
		}
		spans = append(spans, span{start, start + m[1], kAPIKey})
		return start + m[1]
	}
	for _, sep := range [...]byte{'-', '_'} {
		for off := 0; off < len(s); {
			i := strings.IndexByte(s[off:], sep)
			if i < 0 {
				break
			}
			i += off
			off = i + 1
			if end := try(shapeStart(s, i)); end > 0 {
				off = end
			}
		}
	}
	for off := 0; off < len(s); {
		i := strings.IndexByte(s[off:], 'A')
		if i < 0 {
			break
		}
		i += off
		off = i + 1
		if p := s[i:min(i+4, len(s))]; p == "AKIA" || p == "ASIA" || p == "AIza" {
			if end := try(i); end > 0 {
				off = end
			}
		}
	}
	return spans
}

// shapeStart returns where the key prefix ending with the separator at
// s[i] starts, or -1 when no prefix ends there.
func shapeStart(s string, i int) int {
	before := s[:i]
	switch {
	case s[i] == '-' && strings.HasSuffix(before, "sk"):
		return i - 2
	case s[i] == '-' && strings.HasSuffix(before, "glpat"):
		return i - 5
	case s[i] == '-' && i >= 4 && before[i-4:i-1] == "xox":
		return i - 4
	case s[i] == '_' && i >= 3 && before[i-3:i-1] == "gh":
		return i - 3
	case s[i] == '_' && strings.HasSuffix(before, "hf"):
		return i - 2
	case s[i] == '_' && strings.HasSuffix(before, "github") && strings.HasPrefix(s[i:], "_pat_"):
		return i - 6
	}
	return -1
}

func isWordChar(c byte) bool { return isAlnum(c) || c == '_' }

// findPrivateKeys finds the bodies of PEM private keys ("-----BEGIN RSA
// PRIVATE KEY-----" ... "-----END ..."), keeping the armour lines so a
// reader still sees what was there. A key cut off before its END line is
// redacted to the end of s.
func findPrivateKeys(s string, spans []span) []span {
	const tail = "PRIVATE KEY-----"
	for off := 0; ; {
		i := strings.Index(s[off:], tail)
		if i < 0 {
			return spans
		}
		i += off
		start := i + len(tail)
		off = start
		if !strings.Contains(s[max(0, i-32):i], "-----BEGIN ") {
			continue // an END line, or prose
		}
		end := len(s)
		if e := strings.Index(s[start:], "-----END "); e >= 0 {
			end = start + e
		}
		for start < end && isSpace(s[start]) {
			start++
		}
		for end > start && isSpace(s[end-1]) {
			end--
		}
		if start < end {
			spans = append(spans, span{start, end, kAPIKey})
		}
		off = end
	}
}

// findBearer finds "Bearer <token>" anywhere, header or not. A word after
// "Bearer" that does not look random is prose ("bearer of bad news").
func findBearer(s string, spans []span) []span {
	for _, word := range [...]string{"Bearer", "bearer", "BEARER"} {
		for off := 0; ; {
			i := strings.Index(s[off:], word)
			if i < 0 {
				break
			}
			i += off
			off = i + len(word)
			if i > 0 && isAlnum(s[i-1]) {
				continue // "forbearer"
			}
			j := skipBlanks(s, off)
			if j == off {
				continue
			}
			e := j
			for e < len(s) && isTokenChar(s[e]) {
				e++
			}
			if tokenish(s[j:e]) {
				spans = append(spans, span{j, e, kAuthorization})
				off = e
			}
		}
	}
	return spans
}

// authValue adds the secret part of the header value s[vs:ve]: what
// follows a known scheme ("Bearer x", "Basic x", "token x"; the scheme
// stays, it helps a reader and is no secret), or a lone token. Anything
// else is taken for prose ("Authorization: the server checks ...").
func authValue(s string, vs, ve int, spans []span) []span {
	for ve > vs && isSpace(s[ve-1]) {
		ve--
	}
	w := vs
	for w < ve && !isSpace(s[w]) {
		w++
	}
	rest := w
	for rest < ve && isSpace(s[rest]) {
		rest++
	}
	switch {
	case rest < ve && isScheme(s[vs:w]):
		if !placeholder(s[rest:ve]) {
			spans = append(spans, span{rest, ve, kAuthorization})
		}
	case rest == ve && tokenish(s[vs:w]):
		spans = append(spans, span{vs, w, kAuthorization})
	}
	return spans
}

func isScheme(w string) bool {
	for _, s := range [...]string{"basic", "bearer", "token", "digest", "negotiate", "ntlm",
		"aws4-hmac-sha256", "hoba", "mutual", "dpop", "apikey", "key", "sso-key"} {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

// tokenish reports whether w looks like a random credential rather than a
// word: long enough, and holding letters and digits (or both cases at a
// length no word has).
func tokenish(w string) bool {
	if len(w) < minSecretLen {
		return false
	}
	var lower, upper, digit bool
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case isDigit(c):
			digit = true
		case !isTokenChar(c):
			return false
		}
	}
	return digit && (lower || upper) || len(w) >= 20 && lower && upper
}

// classes counts which of lower case, upper case and digits w holds.
func classes(w string) int {
	var lower, upper, digit int
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case 'a' <= c && c <= 'z':
			lower = 1
		case 'A' <= c && c <= 'Z':
			upper = 1
		case isDigit(c):
			digit = 1
		}
	}
	return lower + upper + digit
}

// isTokenChar reports whether c may appear in a bearer token (RFC 6750's
// b64token).
func isTokenChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-._~+/=", c) >= 0
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
