package redact_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"steward/backend/event"
	"steward/backend/redact"
)

// TestCanaries plants secrets in every place a run keeps text (run spec,
// tool arguments nested in arrays and objects, tool output, model text,
// an env dump, an HTTP request dump, URLs, JSON escapes, file contents)
// and checks that none survives, in any spelling, and that each place is
// named in the report.
func TestCanaries(t *testing.T) {
	t.Parallel()
	slashy := "p/ss+wörd=42-" + fake(40, 12, alnum) // configured; escapes in JSON and URLs
	dbPassword := "Tr0ub4dor&3-" + fake(41, 6, alnum)
	configured := []string{serverToken, openAIKey, anthropicKey, slashy}
	canaries := append([]string{githubPAT, awsKeyID, awsSecret, dbPassword, opaqueBearer, slackBot, hfToken,
		gitlabPAT, googleKey, githubFine}, configured...)

	envDump := strings.Join([]string{
		"HOME=/home/dev", "PATH=/usr/local/bin:/usr/bin", "OPENAI_API_KEY=" + openAIKey,
		"ANTHROPIC_API_KEY=" + anthropicKey, "GITHUB_TOKEN=" + githubPAT, "AWS_ACCESS_KEY_ID=" + awsKeyID,
		"AWS_SECRET_ACCESS_KEY=" + awsSecret, "DATABASE_URL=postgres://app:" + dbPassword + "@db:5432/app",
		"STEWARD_TOKEN=" + serverToken, "GOOGLE_API_KEY=" + googleKey,
	}, "\n")
	httpDump := "POST /v1/messages HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer " + opaqueBearer +
		"\r\nX-Api-Key: " + anthropicKey + "\r\nContent-Type: application/json\r\n\r\n{\"model\":\"m\"}"
	mustJSON := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	events := map[string]json.RawMessage{
		"event 1 run.created": mustJSON(event.RunCreatedData{
			Instructions: "Use the key " + openAIKey + " to call the API.",
			Spec:         mustJSON(map[string]any{"name": "dev", "env": map[string]string{"HF_TOKEN": hfToken}}),
			History:      []event.Message{{Role: "user", Text: "my slack bot token is " + slackBot}},
		}),
		"event 2 node.started": mustJSON(event.NodeStartedData{Kind: "tool", Tool: "run_command", Arguments: mustJSON(map[string]string{
			"command": "curl -H 'Authorization: Bearer " + opaqueBearer + "' 'https://api.example.com/items?key=" + url.QueryEscape(slashy) + "'",
		})}),
		"event 3 node.finished": mustJSON(event.NodeFinishedData{Status: "succeeded", Output: envDump}),
		"event 4 node.finished": mustJSON(event.NodeFinishedData{Status: "succeeded", Text: "Done. I used " + hfToken +
			" and the server token " + serverToken + ". PAT: " + githubFine}),
		"event 5 approval.requested": mustJSON(event.ApprovalRequestedData{Tool: "write_file", Arguments: mustJSON(map[string]any{
			"files": []any{map[string]any{"path": "a.txt", "meta": map[string]any{"tokens": []string{"x", serverToken}}}},
		})}),
		"event 6 node.finished": mustJSON(event.NodeFinishedData{Status: "succeeded", Output: httpDump}),
		"event 7 approval.decided": mustJSON(event.ApprovalDecidedData{Decision: "approve", Arguments: mustJSON(map[string]string{
			"remote": "https://oauth2:" + gitlabPAT + "@gitlab.com/o/r.git",
		})}),
		// Written by an encoder that escapes "/" and all of non-ASCII.
		"event 8 node.finished": json.RawMessage(`{"status":"succeeded","output":"k=` +
			strings.ReplaceAll(jsonASCII(t, slashy), "/", `\/`) + `"}`),
		// A model that spelt its arguments with \u escapes.
		"event 9 node.started": json.RawMessage(`{"kind":"tool","arguments":{"t":"` + uEscape(serverToken) + `"}}`),
	}
	files := map[string][]byte{
		"blob config.json": mustJSON(map[string]any{"anthropic": map[string]string{"api_key": anthropicKey}, "url": "https://u:" + dbPassword + "@h"}),
		"blob .env":        []byte(envDump + "\n"),
		"blob shot.bin":    append([]byte("\x89PNG\x00\x00"), []byte("tEXt "+serverToken+" "+openAIKey)...),
		"blob escaped.js":  []byte(`const cfg = {"key": "` + strings.ReplaceAll(jsonASCII(t, slashy), "/", `\/`) + `"};`),
	}

	r := redact.New(configured...)
	check := func(where string, out []byte) {
		t.Helper()
		texts := []string{string(out)}
		if json.Valid(out) {
			var v any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatal(err)
			}
			texts = append(texts, allStrings(v)...)
		}
		for _, text := range texts {
			for _, c := range canaries {
				for _, form := range []string{c, url.QueryEscape(c), strings.ReplaceAll(jsonASCII(t, c), "/", `\/`)} {
					if strings.Contains(text, form) {
						t.Errorf("%s: a canary survived (%d bytes, starting %.6s...) in %q", where, len(c), c, text)
					}
				}
			}
		}
	}
	for where, data := range events {
		out := r.JSON(where, data)
		if json.Valid(data) && !json.Valid(out) {
			t.Errorf("%s: output is not valid JSON: %s", where, out)
		}
		check(where, out)
	}
	for where, b := range files {
		check(where, r.Bytes(where, b))
	}
	check("manifest", []byte(r.String("manifest", "instructions: use "+openAIKey)))

	named := map[string]bool{}
	for _, f := range r.Report() {
		named[f.Where] = true
		for _, c := range canaries {
			if strings.Contains(fmt.Sprint(f), c) {
				t.Errorf("the report holds a secret: %v", f)
			}
		}
	}
	for where := range events {
		if !named[where] {
			t.Errorf("report does not name %q", where)
		}
	}
	for where := range files {
		if !named[where] {
			t.Errorf("report does not name %q", where)
		}
	}
}

// jsonASCII returns s as the body of a JSON string with every non-ASCII
// rune escaped, as Python and PHP write it.
func jsonASCII(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			q, err := json.Marshal(string(r))
			if err != nil {
				t.Fatal(err)
			}
			b.Write(q[1 : len(q)-1])
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// uEscape spells every byte of an ASCII string as a \u escape.
func uEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\u%04x`, s[i])
	}
	return b.String()
}

// allStrings returns every string of a decoded JSON value, keys included.
func allStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, allStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, e := range v {
			out = append(out, k)
			out = append(out, allStrings(e)...)
		}
		return out
	}
	return nil
}
