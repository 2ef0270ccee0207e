package redact

import (
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// JSON redacts every string value of a JSON document (object keys are
// names, not data, and are left alone), keeping it valid JSON. The document
// is not decoded into Go values and encoded again, which would reorder keys
// and reformat numbers: only the string literals that held a secret are
// rewritten, every other byte is kept, and raw itself is returned when
// nothing was found. A value is also judged by its key, so
// {"api_key": "x..."} and {"Authorization": ["Bearer x..."]} are caught even
// when the value has no telling shape.
//
// A document that is not valid JSON is redacted as text, so that nothing
// leaks from it either.
func (r *Redactor) JSON(where string, raw json.RawMessage) json.RawMessage {
	out, t, ok := r.walk(raw)
	if !ok {
		s, tt := r.redact(string(raw), nil)
		if tt.empty() {
			return raw
		}
		r.record(where, &tt)
		return json.RawMessage(s)
	}
	r.record(where, &t)
	return out
}

// States of the walk: what the next token may be.
const (
	wantValue        = iota // at the top, after ':', after ',' in an array
	wantValueOrClose        // after '['
	wantKeyOrClose          // after '{'
	wantKey                 // after ',' in an object
	wantColon               // after a key
	wantCommaOrClose        // after a value in an array or object
	wantEnd                 // after the top-level value
)

// frame is an open object or array. key is the object's current key; an
// array takes the key it is the value of, so that http.Header's
// {"Authorization": ["Bearer x"]} is judged by its name.
type frame struct {
	obj bool
	key string
	// label is the object's "name" (or "key", "header") string, which
	// names its "value": HAR headers [{"name": "Authorization", "value":
	// "Basic x"}], Kubernetes env [{"name": "OPENAI_API_KEY", "value": "x"}].
	label string
}

// walk returns raw with its string values redacted and what it replaced;
// ok is false when raw is not JSON. It checks the structure (brackets,
// commas, colons, string escapes), which is what tells keys from values,
// and is lenient about the spelling of numbers.
func (r *Redactor) walk(raw []byte) (out []byte, t tally, ok bool) {
	if len(raw) == 0 {
		return nil, t, false
	}
	// A view of raw, not a copy: copying every event's data cost a fifth
	// of the time. It is safe because nothing derived from s outlives this
	// call (out is built by copying) and raw is not written meanwhile.
	s := unsafe.String(unsafe.SliceData(raw), len(raw))
	var (
		stackBuf [16]frame
		spanBuf  [8]span
		stack    = stackBuf[:0]
		spans    = spanBuf[:0]
		last     int // s[last:] is not yet copied to out
	)
	state := wantValue
	key := func() string {
		if len(stack) == 0 {
			return ""
		}
		return stack[len(stack)-1].key
	}
	endValue := func() {
		if len(stack) == 0 {
			state = wantEnd
		} else {
			state = wantCommaOrClose
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if isSpace(c) {
			i++
			continue
		}
		switch state {
		case wantColon:
			if c != ':' {
				return nil, t, false
			}
			state = wantValue
			i++
			continue
		case wantCommaOrClose:
			top := &stack[len(stack)-1]
			switch {
			case c == ',' && top.obj:
				state = wantKey
			case c == ',':
				state = wantValue
			case c == '}' && top.obj, c == ']' && !top.obj:
				stack = stack[:len(stack)-1]
				endValue()
			default:
				return nil, t, false
			}
			i++
			continue
		case wantKey, wantKeyOrClose:
			if c == '}' && state == wantKeyOrClose {
				stack = stack[:len(stack)-1]
				endValue()
				i++
				continue
			}
			if c != '"' {
				return nil, t, false
			}
			end, esc := scanString(s, i)
			if end < 0 {
				return nil, t, false
			}
			k := s[i+1 : end]
			if esc {
				if k, ok = unquote(k); !ok {
					return nil, t, false
				}
			}
			stack[len(stack)-1].key = k
			state = wantColon
			i = end + 1
			continue
		case wantEnd:
			return nil, t, false
		}
		// state is wantValue or wantValueOrClose.
		switch {
		case c == ']' && state == wantValueOrClose:
			stack = stack[:len(stack)-1]
			endValue()
			i++
		case c == '{':
			stack = append(stack, frame{obj: true})
			state = wantKeyOrClose
			i++
		case c == '[':
			stack = append(stack, frame{key: key()})
			state = wantValueOrClose
			i++
		case c == '"':
			end, esc := scanString(s, i)
			if end < 0 {
				return nil, t, false
			}
			v := s[i+1 : end]
			if esc {
				if v, ok = unquote(v); !ok {
					return nil, t, false
				}
			}
			k := key()
			spans = r.detect(v, spans[:0])
			spans = keyedSpans(k, v, spans)
			if len(stack) > 0 && stack[len(stack)-1].obj {
				switch top := &stack[len(stack)-1]; k {
				case "name", "key", "header":
					top.label = v
				case "value":
					spans = keyedSpans(top.label, v, spans)
				}
			}
			r.learn(v, spans)
			if red, tt := replace(v, spans); !tt.empty() {
				t.addAll(&tt)
				if out == nil {
					out = make([]byte, 0, len(raw)+64)
				}
				out = append(out, s[last:i]...)
				out = appendQuoted(out, red)
				last = end + 1
			}
			i = end + 1
			endValue()
		default:
			e := i
			for e < len(s) && (isAlnum(s[e]) || s[e] == '.' || s[e] == '+' || s[e] == '-') {
				e++
			}
			if !scalar(s[i:e]) {
				return nil, t, false
			}
			i = e
			endValue()
		}
	}
	if state != wantEnd {
		return nil, t, false // empty or truncated
	}
	if out == nil {
		return raw, t, true
	}
	return append(out, s[last:]...), t, true
}

// scalar reports whether w is a JSON literal or starts like a number.
func scalar(w string) bool {
	switch w {
	case "true", "false", "null":
		return true
	}
	return w != "" && (isDigit(w[0]) || w[0] == '-')
}

// scanString returns the index of the quote closing the string literal
// that opens at s[i], or -1, and whether the literal holds escapes. It
// jumps from quote to quote (a vectorised search) rather than walking each
// byte: a quote preceded by an odd run of backslashes is escaped.
func scanString(s string, i int) (end int, esc bool) {
	j := i + 1
	for {
		q := strings.IndexByte(s[j:], '"')
		if q < 0 {
			return -1, false
		}
		q += j
		n := 0
		for k := q - 1; k > i && s[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q, strings.IndexByte(s[i+1:q], '\\') >= 0
		}
		j = q + 1
	}
}

// unquote decodes the body of a JSON string literal that holds escapes. A
// lone UTF-16 surrogate becomes U+FFFD, as encoding/json decodes it.
func unquote(body string) (string, bool) {
	var b strings.Builder
	b.Grow(len(body))
	for {
		i := strings.IndexByte(body, '\\')
		if i < 0 {
			b.WriteString(body)
			return b.String(), true
		}
		b.WriteString(body[:i])
		if i+1 == len(body) {
			return "", false
		}
		switch c := body[i+1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(body[i+2:])
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if len(body) >= i+12 && body[i+6] == '\\' && body[i+7] == 'u' {
					r2, ok2 = hex4(body[i+8:])
				}
				if rr := utf16.DecodeRune(r, r2); ok2 && rr != utf8.RuneError {
					r = rr
					body = body[6:] // the second half, consumed below with the first
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
			body = body[i+6:]
			continue
		default:
			return "", false
		}
		body = body[i+2:]
	}
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case isDigit(c):
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendQuoted appends s as a JSON string literal, escaped as
// encoding/json escapes it (HTML characters included), so that a rewritten
// value reads like the rest of an event log Steward wrote.
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			// Valid JSON but not valid JavaScript; encoding/json escapes them.
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
