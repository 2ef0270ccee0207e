package redact_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/redact"
)

// pngBase64 returns a real PNG of noise, base64-encoded as a data URL or a
// screenshot tool's output holds it.
func pngBase64(t testing.TB) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 48, 48))
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.UintN(256))
	}
	img.Set(0, 0, color.White)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// sameBytes reports whether a and b are the same slice, not just equal.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func TestJSONUnchanged(t *testing.T) {
	t.Parallel()
	docs := map[string]string{
		"node started":  `{"kind":"tool","parent":"n_1","label":"run_command","step":3,"tool":"run_command","call_id":"call_9","arguments":{"command":"go test ./...","timeout_s":120},"risk":"exec"}`,
		"node finished": `{"status":"succeeded","text":"Done.\nI changed \u003cmain.go\u003e and ran the tests: ok 0.41s","usage":{"input_tokens":12034,"output_tokens":311},"duration_ms":4210,"cost_usd":0.0123}`,
		"pretty":        "{\n  \"z\": [1, 2.5e-3, -0, true, false, null],\n  \"a\": {\"\": \"\", \"é\": \"\\u00e9\\ud83d\\ude00\"}\n}\n",
		"file changed":  `{"path":"src/app.go","before":"3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a393f2a9c1d8e7b6a5f4e3d2c1b","after":"9e107d9d372bb6826bd81d3542a419d6e107d9d372bb6826bd81d3542a419d6","size":120,"source":"tool","op":"n_4"}`,
		"json schema":   `{"type":"object","properties":{"api_key":{"type":"string","description":"The API key"},"max_tokens":{"type":"integer"}},"required":["api_key"]}`,
		"screenshot":    `{"name":"shot-1.png","kind":"screenshot","data":"data:image/png;base64,` + pngBase64(t) + `"}`,
		"top string":    `"just text"`,
		"top number":    ` 42 `,
		"empty":         `{}`,
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := redact.New(serverToken)
			raw := json.RawMessage(doc)
			got := r.JSON("e", raw)
			if !sameBytes(got, raw) {
				t.Errorf("JSON returned new bytes for a document without secrets:\n in  %s\n got %s", raw, got)
			}
			if rep := r.Report(); len(rep) != 0 {
				t.Errorf("Report() = %v, want none", rep)
			}
		})
	}
}

func TestJSONRedacts(t *testing.T) {
	t.Parallel()
	tok := serverToken
	tests := []struct{ name, in, want string }{
		{"nested in arrays and objects",
			`{"z":1,"a":[{"b":["x","` + tok + `"]}],"n":1.5e3}`,
			`{"z":1,"a":[{"b":["x","[REDACTED:configured]"]}],"n":1.5e3}`},
		{"escaped in JSON",
			`{"t":"pre abc\/def+ghi=jkl:\u00e9 post\n"}`,
			`{"t":"pre [REDACTED:configured] post\n"}`},
		{"escaped letters",
			`{"t":"\u0073k-proj-` + openAIKey[8:] + `"}`,
			`{"t":"[REDACTED:api_key]"}`},
		{"split by an escape",
			`{"t":"` + tok[:10] + `\u00` + hexByte(tok[10]) + tok[11:] + `"}`,
			`{"t":"[REDACTED:configured]"}`},
		{"by its key",
			`{"api_key":"q8Xf2LmN0pRt","apiKey":"short","password":"a b c d e"}`,
			`{"api_key":"[REDACTED:api_key]","apiKey":"short","password":"[REDACTED:api_key]"}`},
		{"http.Header",
			`{"headers":{"Authorization":["Bearer abc123def456ghi"],"Accept":["*/*"]}}`,
			`{"headers":{"Authorization":["Bearer [REDACTED:authorization]"],"Accept":["*/*"]}}`},
		{"HAR headers",
			`{"headers":[{"name":"Accept","value":"*/*"},{"name":"Authorization","value":"Basic dXNlcjpwYXNz"}]}`,
			`{"headers":[{"name":"Accept","value":"*/*"},{"name":"Authorization","value":"Basic [REDACTED:authorization]"}]}`},
		{"Kubernetes env",
			`{"env":[{"name":"LOG_LEVEL","value":"debug-verbose"},{"name":"DB_PASSWORD","value":"hunter22"}]}`,
			`{"env":[{"name":"LOG_LEVEL","value":"debug-verbose"},{"name":"DB_PASSWORD","value":"[REDACTED:api_key]"}]}`},
		{"key value in a header list",
			`[["Authorization","Bearer abc123def456ghi"]]`,
			`[["Authorization","Bearer [REDACTED:authorization]"]]`},
		{"keeps Go's escaping",
			`{"t":"\u003cb\u003e` + tok + `\u003c/b\u003e \"q\" \u2028"}`,
			`{"t":"\u003cb\u003e[REDACTED:configured]\u003c/b\u003e \"q\" \u2028"}`},
		{"keeps order and layout",
			"{\n  \"zeta\": \"" + tok + "\",\n  \"alpha\": 1\n}",
			"{\n  \"zeta\": \"[REDACTED:configured]\",\n  \"alpha\": 1\n}"},
		{"top-level string", `"` + tok + `"`, `"[REDACTED:configured]"`},
		{"keys stay, values go",
			`{"api_key":{"type":"string","default":"` + tok + `"}}`,
			`{"api_key":{"type":"string","default":"[REDACTED:configured]"}}`},
		{"not JSON: redacted as text", `{"a": "` + tok + `"`, `{"a": "[REDACTED:configured]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := redact.New(tok, "abc/def+ghi=jkl:é")
			got := string(r.JSON("e", json.RawMessage(tt.in)))
			if got != tt.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if json.Valid([]byte(tt.in)) && !json.Valid([]byte(got)) {
				t.Errorf("JSON made a valid document invalid: %s", got)
			}
			again := redact.New(tok, "abc/def+ghi=jkl:é")
			if raw := json.RawMessage(got); !sameBytes(again.JSON("e", raw), raw) || len(again.Report()) != 0 {
				t.Errorf("second pass changed %s", got)
			}
		})
	}
}

func hexByte(c byte) string {
	const hex = "0123456789abcdef"
	return string([]byte{hex[c>>4], hex[c&0xF]})
}

func TestJSONInvalidUnchanged(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `{`, `{"a" 1}`, `[1,]`, `{"a":1}}`, `"unterminated`, `{"a":"\x"}`, `nul`} {
		r := redact.New(serverToken)
		raw := json.RawMessage(in)
		if got := r.JSON("e", raw); !sameBytes(got, raw) {
			t.Errorf("JSON(%q) = %q, want the same bytes", in, got)
		}
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	r := redact.New(serverToken)

	text := []byte("# .env\nOPENAI_API_KEY=" + openAIKey + "\nSERVER_TOKEN=" + serverToken + "\nDEBUG=1\n")
	got := r.Bytes("blob text", text)
	if want := "# .env\nOPENAI_API_KEY=[REDACTED:api_key]\nSERVER_TOKEN=[REDACTED:configured]\nDEBUG=1\n"; string(got) != want {
		t.Errorf("text: got %q, want %q", got, want)
	}

	plain := []byte("package main\n\nfunc main() {}\n")
	if got := r.Bytes("blob plain", plain); !sameBytes(got, plain) {
		t.Error("a text file without secrets came back as new bytes")
	}

	// A binary file: configured values are masked in place, patterns are
	// not applied (the GitHub token stays: masking random bytes that look
	// like one would corrupt pictures for nothing).
	bin := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), []byte(serverToken+"|"+githubPAT+"|"+serverToken)...)
	orig := bytes.Clone(bin)
	got = r.Bytes("blob bin", bin)
	mask := string(bytes.Repeat([]byte("*"), len(serverToken)))
	if want := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + mask + "|" + githubPAT + "|" + mask; string(got) != want {
		t.Errorf("binary: got %q, want %q", got, want)
	}
	if !bytes.Equal(bin, orig) {
		t.Error("Bytes modified its argument")
	}
	cleanBin := []byte("\x00\x01\x02 no secrets")
	if got := r.Bytes("blob bin clean", cleanBin); !sameBytes(got, cleanBin) {
		t.Error("a binary file without secrets came back as new bytes")
	}

	want := []redact.Finding{
		{Kind: "skipped binary", Where: "blob bin", Count: 2},
		{Kind: "api_key", Where: "blob text", Count: 1},
		{Kind: "configured", Where: "blob text", Count: 1},
	}
	if diff := cmp.Diff(want, r.Report()); diff != "" {
		t.Errorf("Report (-want +got):\n%s", diff)
	}
}

// FuzzJSON checks that JSON keeps any valid document valid, with the same
// keys, numbers and nesting, that only string values change, and that a
// configured value planted anywhere does not survive.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,"x",{"b":null}],"c":"SECRET-VALUE-1"}`,
		`"SECRET-VALUE-1"`, `[]`, `{"k\"ey":"v\u00e9 \n SECRET-VALUE-1\ud83d\ude00"}`,
		`{"Authorization":"Bearer abc123def456ghi","api_key":"q8Xf2LmN0pRt"}`,
		`{"x":"https://u:pw-12345@h/p?token=abcdef123456"}`, ` [ -1.5e+10 , true ] `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		raw := json.RawMessage(in)
		out := redact.New("SECRET-VALUE-1").JSON("f", raw)
		if !json.Valid(out) {
			t.Fatalf("JSON(%s) = %s, not valid", in, out)
		}
		if string(out) == in && !sameBytes(out, raw) {
			t.Fatalf("JSON(%s) copied a document it did not change", in)
		}
		a, b := decodeShape(t, []byte(in)), decodeShape(t, out)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("JSON(%s) changed more than string values (-in +out):\n%s", in, diff)
		}
		d := json.NewDecoder(bytes.NewReader(out))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		for _, s := range valueStrings(v) {
			if strings.Contains(s, "SECRET-VALUE-1") {
				t.Fatalf("JSON(%s) = %s: the configured value survived", in, out)
			}
		}
	})
}

// decodeShape decodes a document with every string value emptied.
func decodeShape(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var empty func(any) any
	empty = func(v any) any {
		switch v := v.(type) {
		case string:
			return ""
		case []any:
			for i := range v {
				v[i] = empty(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = empty(v[k])
			}
		}
		return v
	}
	return empty(v)
}

// valueStrings returns the string values of a decoded document (not keys).
func valueStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, valueStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, e := range v {
			out = append(out, valueStrings(e)...)
		}
		return out
	}
	return nil
}
