package redact

import "strings"

// strength is how surely a name announces a secret value.
type strength uint8

const (
	notSecret strength = iota
	// weakName ends in "key" with no qualifier ("key", "sort_key",
	// "STRIPE_KEY"): only a random-looking value is taken.
	weakName
	// strongName ends in token, secret, api key, access key... ("GITHUB_TOKEN",
	// "client_secret", "apiKey"): any value that is not a placeholder.
	strongName
	// passwordName ends in password, passwd, passphrase or (after another
	// word) pass: passwords may be short and, quoted, hold spaces.
	passwordName
)

// findAtSeparators finds what hangs on a ':' or '=': the values of
// secret-named assignments, Authorization header values and the
// credentials of URLs.
//
// Assignments come in many notations: env files and dumps
// (OPENAI_API_KEY=sk-...), YAML (api_key: x), JSON text ("api_key": "x"),
// code (apiKey := "x"), flags (--token=x), query strings
// (?access_token=x&...). The name is read backwards from the separator and
// the value forwards; only the value is replaced. Headers are the same
// with the name "Authorization" or "Proxy-Authorization".
func findAtSeparators(s string, spans []span) []span {
	seps := separators{s: s, colon: -2, eq: -2}
	for off := 0; ; {
		i := seps.next(off)
		if i < 0 {
			return spans
		}
		off = i + 1
		if s[i] == ':' {
			if a := authorityAfter(s, i); a >= 0 {
				spans = urlCredentials(s, a, spans)
				continue
			}
			if off < len(s) && s[off] == '=' {
				off++ // Go's :=
			}
		} else if off < len(s) && strings.IndexByte("=>~", s[off]) >= 0 ||
			i > 0 && strings.IndexByte("=!<>", s[i-1]) >= 0 {
			continue // a comparison or an arrow, not an assignment
		}
		name, ns := nameBefore(s, i)
		if name == "" || strings.HasSuffix(s[:ns], "/") {
			continue // the user:password of a URL, already judged as one
		}
		k := skipBlanks(s, off)
		if k == len(s) {
			return spans
		}
		if hasSuffixFold(name, "authorization") {
			vs, ve, _ := valueAt(s, k, "\n\r\"'`\\")
			spans = authValue(s, vs, ve, spans)
			continue
		}
		st := nameStrength(name)
		if st == notSecret {
			continue
		}
		vs, ve, quoted := valueAt(s, k, " \t\n\r\"'`,;&)}]<>\\")
		if valueOK(s[vs:ve], st, quoted) {
			spans = append(spans, span{vs, ve, kAPIKey})
			off = max(off, ve)
		}
	}
}

// separators finds the ':' and '=' of a string in order with two
// vectorised searches, each resumed only once passed, rather than a
// byte-by-byte loop.
type separators struct {
	s string
	// colon and eq are the next of each at or after the last offset
	// asked for: -1 when there is none left, -2 before the first search.
	colon, eq int
}

func (p *separators) next(off int) int {
	if p.colon != -1 && p.colon < off {
		p.colon = indexFrom(p.s, off, ':')
	}
	if p.eq != -1 && p.eq < off {
		p.eq = indexFrom(p.s, off, '=')
	}
	switch {
	case p.colon < 0:
		return p.eq
	case p.eq < 0:
		return p.colon
	}
	return min(p.colon, p.eq)
}

func indexFrom(s string, off int, c byte) int {
	if off >= len(s) {
		return -1
	}
	if i := strings.IndexByte(s[off:], c); i >= 0 {
		return off + i
	}
	return -1
}

// authorityAfter returns where a URL's authority starts when the ':' at
// s[i] ends its scheme ("://", or ":\/\/" as JSON may escape it), or -1.
func authorityAfter(s string, i int) int {
	switch rest := s[i+1:]; {
	case strings.HasPrefix(rest, "//"):
		return i + 3
	case strings.HasPrefix(rest, `\/\/`):
		return i + 5
	}
	return -1
}

// urlCredentials adds the user:password of the URL authority starting at
// s[a]. A user without a password ("ssh://git@host") is no secret.
func urlCredentials(s string, a int, spans []span) []span {
	at := -1
	for e := a; e < len(s) && !endsAuthority(s[e]); e++ {
		if s[e] == '@' {
			at = e // the last one: a password may hold an unescaped '@'
		}
	}
	if at < 0 {
		return spans
	}
	if c := strings.IndexByte(s[a:at], ':'); c >= 0 && a+c+1 < at {
		spans = append(spans, span{a, at, kURLCredentials})
	}
	return spans
}

func endsAuthority(c byte) bool {
	switch c {
	case '/', '?', '#', '"', '\'', '`', '<', '>', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// keyedSpans finds the secret of a JSON string value v by the name of its
// key: {"Authorization": "Bearer x"}, {"api_key": "x"}, {"password": "a b"}.
// Spans are relative to v.
func keyedSpans(key, v string, spans []span) []span {
	if key == "" {
		return spans
	}
	if hasSuffixFold(key, "authorization") {
		return authValue(v, 0, len(v), spans)
	}
	if valueOK(v, nameStrength(key), true) {
		spans = append(spans, span{0, len(v), kAPIKey})
	}
	return spans
}

// nameBefore returns the name that ends just before the separator at s[i]:
// blanks and a closing quote (perhaps escaped, as in JSON inside JSON) are
// skipped. Names are letters, digits, '_', '-' and '.', at most 128 bytes.
// start is the index of the name in s.
func nameBefore(s string, i int) (name string, start int) {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
		if j > 0 && s[j-1] == '\\' {
			j--
		}
	}
	end := j
	for j > 0 && end-j < 128 && isNameChar(s[j-1]) {
		j--
	}
	return s[j:end], j
}

func isNameChar(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

// nameStrength judges a name by its last word or two, so that "max_tokens",
// "keyboard", "monkey", "token_count" or "PWD" (the shell's directory) are
// not secret names while "OPENAI_API_KEY", "accessToken" and "DB_PASSWORD"
// are. Words are split at non-alphanumerics and camelCase humps.
func nameStrength(name string) strength {
	// Most names fail here: every secret word ends in one of these
	// letters (key, token, secret, password, passphrase, pass, credential).
	trimmed := strings.TrimRight(name, "_-.")
	if trimmed == "" || strings.IndexByte("yntdesl", trimmed[len(trimmed)-1]|0x20) < 0 {
		return notSecret
	}
	last, prev := lastWords(name)
	if last == "" {
		return notSecret
	}
	for _, w := range [...]string{"password", "passwd", "passphrase"} {
		if hasSuffixFold(last, w) {
			return passwordName
		}
	}
	if strings.EqualFold(last, "pass") && prev != "" {
		return passwordName // DB_PASS; a lone "PASS:" is a test runner's verdict
	}
	for _, w := range [...]string{"token", "secret", "apikey", "credential", "credentials",
		"accesskey", "secretkey", "privatekey"} {
		if hasSuffixFold(last, w) {
			return strongName
		}
	}
	if !strings.EqualFold(last, "key") {
		return notSecret
	}
	for _, w := range [...]string{"api", "access", "secret", "private", "client", "auth",
		"master", "signing", "encryption", "license", "app", "service", "account", "session",
		"subscription", "admin"} {
		if strings.EqualFold(prev, w) {
			return strongName
		}
	}
	return weakName
}

// lastWords returns the last two words of name.
func lastWords(name string) (last, prev string) {
	end := len(name)
	for n := 0; n < 2; n++ {
		for end > 0 && !isAlnum(name[end-1]) {
			end--
		}
		start := end
		for start > 0 && isAlnum(name[start-1]) && (start == end || !hump(name, start)) {
			start--
		}
		if n == 0 {
			last = name[start:end]
		} else {
			prev = name[start:end]
		}
		end = start
	}
	return last, prev
}

// hump reports whether a camelCase word starts at name[i]: "apiKey" at
// 'K', "APIKey" at 'K' (an upper case letter followed by a lower case one
// after upper case).
func hump(name string, i int) bool {
	if i == 0 || !isUpper(name[i]) {
		return false
	}
	p := name[i-1]
	return isLower(p) || isDigit(p) || isUpper(p) && i+1 < len(name) && isLower(name[i+1])
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// valueOK decides whether v, assigned to a name of strength st, is a
// secret worth removing. It turns down what is surely not one: too short,
// a placeholder or type ("${TOKEN}", "<your key>", "string"), code
// ("os.getenv(...)", "self.api_key", "process.env.TOKEN") and, for a weak
// name, anything that does not look random.
func valueOK(v string, st strength, quoted bool) bool {
	minLen := minSecretLen
	if st == passwordName {
		minLen = 6 // passwords are often short; api keys never are
	}
	if st == notSecret || len(v) < minLen || placeholder(v) {
		return false
	}
	if strings.ContainsAny(v, " \t\n\r") && (st != passwordName || !quoted) {
		return false
	}
	if !quoted && strings.ContainsAny(v, "([{") {
		return false
	}
	if st == weakName {
		return len(v) >= 16 && tokenish(v) && !strings.HasPrefix(v, "/")
	}
	return !codeReference(v)
}

// codeReference reports whether v reads as a reference rather than a value:
// dotted names or an UPPER_SNAKE variable name, without digits.
func codeReference(v string) bool {
	lower, dot, underscore := false, false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isLower(c):
			lower = true
		case isUpper(c):
		case c == '.':
			dot = true
		case c == '_':
			underscore = true
		default:
			return false
		}
	}
	return dot || underscore && !lower
}

// placeholder reports whether v stands for a value rather than being one.
func placeholder(v string) bool {
	switch v[0] {
	case '$', '%', '<', '{', '*':
		return true
	}
	if strings.HasPrefix(v, "[REDACTED") || strings.Count(v, v[:1]) == len(v) {
		return true
	}
	switch strings.ToLower(v) {
	case "string", "str", "bytes", "number", "integer", "boolean", "null", "undefined",
		"object", "optional", "required", "redacted":
		return true
	}
	return false
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// valueAt returns the bounds of the value that starts at s[k]: a quoted
// value (perhaps with escaped quotes, as in JSON inside JSON) runs to its
// closing quote on the same line, a bare one to the first byte of stop.
func valueAt(s string, k int, stop string) (vs, ve int, quoted bool) {
	escaped := false
	if s[k] == '\\' && k+1 < len(s) && (s[k+1] == '"' || s[k+1] == '\'') {
		escaped = true
		k++
	}
	if q := s[k]; q == '"' || q == '\'' || q == '`' {
		e := k + 1
		for e < len(s) && s[e] != q && s[e] != '\n' {
			if s[e] == '\\' && !escaped && e+1 < len(s) && s[e+1] != '\n' {
				e++ // an escaped quote does not close the value
			}
			e++
		}
		if e < len(s) && s[e] == q {
			if escaped && s[e-1] == '\\' {
				return k + 1, e - 1, true
			}
			return k + 1, e, true
		}
		// Not closed on its line: take it bare.
		k++
	}
	e := k
	for e < len(s) && strings.IndexByte(stop, s[e]) < 0 {
		e++
	}
	return k, e, false
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}
