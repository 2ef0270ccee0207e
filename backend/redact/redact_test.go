package redact_test

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/redact"
)

// fake returns a deterministic random-looking string of n characters from
// alphabet, so that the tests hold realistic keys without committing
// anything a secret scanner would take for a real one.
func fake(seed uint64, n int, alphabet string) string {
	rng := rand.New(rand.NewPCG(seed, 42))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperN  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	urlSafe = alnum + "-_"
)

// Keys shaped like the real ones, built at run time.
var (
	openAIKey    = "sk-proj-" + fake(1, 48, urlSafe)
	anthropicKey = "sk-ant-api03-" + fake(2, 93, urlSafe) + "AA"
	legacyOpenAI = "sk-" + fake(3, 48, alnum)
	githubPAT    = "ghp_" + fake(4, 36, alnum)
	githubOAuth  = "gho_" + fake(5, 36, alnum)
	githubFine   = "github_pat_" + fake(6, 22, alnum) + "_" + fake(7, 59, alnum)
	slackBot     = "xoxb-" + fake(8, 12, "0123456789") + "-" + fake(9, 13, "0123456789") + "-" + fake(10, 24, alnum)
	awsKeyID     = "AKIA" + fake(11, 16, upperN)
	awsSecret    = fake(12, 40, alnum+"+/")
	googleKey    = "AIza" + fake(13, 35, urlSafe)
	hfToken      = "hf_" + fake(14, 34, alnum)
	gitlabPAT    = "glpat-" + fake(15, 20, urlSafe)
	serverToken  = fake(16, 32, "0123456789abcdef")
	opaqueBearer = fake(17, 40, alnum+"._-")
)

// detect runs String on a fresh redactor and returns the result and the
// counts by kind.
func detect(t *testing.T, r *redact.Redactor, s string) (string, map[string]int) {
	t.Helper()
	out := r.String("test", s)
	kinds := map[string]int{}
	for _, f := range r.Report() {
		kinds[f.Kind] += f.Count
	}
	return out, kinds
}

func TestStringKinds(t *testing.T) {
	t.Parallel()
	configuredKey := "sk-proj-" + fake(30, 48, urlSafe)
	configured := []string{serverToken, "abc/def+ghi=jkl:é", configuredKey}
	tests := []struct {
		name  string
		in    string
		want  string
		kinds map[string]int
	}{
		// configured
		{"configured", "token is " + serverToken + ".", "token is [REDACTED:configured].", map[string]int{"configured": 1}},
		{"configured twice", serverToken + serverToken, "[REDACTED:configured][REDACTED:configured]", map[string]int{"configured": 2}},
		{"configured JSON-escaped in text", `{"v":"abc\/def+ghi=jkl:\u00e9"}`, `{"v":"[REDACTED:configured]"}`, map[string]int{"configured": 1}},
		{"configured URL-encoded", "https://h/?t=abc%2Fdef%2Bghi%3Djkl%3A%C3%A9&x=1", "https://h/?t=[REDACTED:configured]&x=1", map[string]int{"configured": 1}},
		{"configured key beats its shape", "key " + configuredKey, "key [REDACTED:configured]", map[string]int{"configured": 1}},
		// authorization
		{"http header", "Authorization: Bearer " + opaqueBearer + "\r\nHost: x", "Authorization: Bearer [REDACTED:authorization]\r\nHost: x", map[string]int{"authorization": 1}},
		{"proxy basic", "Proxy-Authorization: Basic dXNlcjpwYXNzd29yZA==", "Proxy-Authorization: Basic [REDACTED:authorization]", map[string]int{"authorization": 1}},
		{"curl -H", `curl -H "Authorization: token ` + githubPAT + `" https://api.github.com`, `curl -H "Authorization: token [REDACTED:authorization]" https://api.github.com`, map[string]int{"authorization": 1}},
		{"python dict", `headers={'authorization': 'Bearer abc123def456ghi'}`, `headers={'authorization': 'Bearer [REDACTED:authorization]'}`, map[string]int{"authorization": 1}},
		{"JSON text", `{"Authorization":"Bearer abc123def456ghi"}`, `{"Authorization":"Bearer [REDACTED:authorization]"}`, map[string]int{"authorization": 1}},
		{"lone token", "AUTHORIZATION=abc123def456ghi", "AUTHORIZATION=[REDACTED:authorization]", map[string]int{"authorization": 1}},
		{"bearer in prose", "then send Bearer " + opaqueBearer + " to it", "then send Bearer [REDACTED:authorization] to it", map[string]int{"authorization": 1}},
		// api_key shapes
		{"openai project", "k " + openAIKey, "k [REDACTED:api_key]", map[string]int{"api_key": 1}},
		{"openai legacy", "(" + legacyOpenAI + ")", "([REDACTED:api_key])", map[string]int{"api_key": 1}},
		{"anthropic", "use " + anthropicKey, "use [REDACTED:api_key]", map[string]int{"api_key": 1}},
		{"github classic", githubPAT + " and " + githubOAuth, "[REDACTED:api_key] and [REDACTED:api_key]", map[string]int{"api_key": 2}},
		{"github fine-grained", "pat " + githubFine, "pat [REDACTED:api_key]", map[string]int{"api_key": 1}},
		{"slack", "slack " + slackBot, "slack [REDACTED:api_key]", map[string]int{"api_key": 1}},
		{"aws key id", "id " + awsKeyID + ".", "id [REDACTED:api_key].", map[string]int{"api_key": 1}},
		{"google", "g " + googleKey, "g [REDACTED:api_key]", map[string]int{"api_key": 1}},
		{"hugging face", "hf " + hfToken, "hf [REDACTED:api_key]", map[string]int{"api_key": 1}},
		{"gitlab", "gl " + gitlabPAT, "gl [REDACTED:api_key]", map[string]int{"api_key": 1}},
		{"pem private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + awsSecret + "\n-----END RSA PRIVATE KEY-----\n",
			"-----BEGIN RSA PRIVATE KEY-----\n[REDACTED:api_key]\n-----END RSA PRIVATE KEY-----\n", map[string]int{"api_key": 1}},
		// api_key assignments
		{"env line", "AWS_SECRET_ACCESS_KEY=" + awsSecret + "\n", "AWS_SECRET_ACCESS_KEY=[REDACTED:api_key]\n", map[string]int{"api_key": 1}},
		{"export quoted", `export STRIPE_SECRET="rk_live_` + fake(20, 24, alnum) + `"`, `export STRIPE_SECRET="[REDACTED:api_key]"`, map[string]int{"api_key": 1}},
		{"json text", `{"api_key": "q8Xf2LmN0pRt"}`, `{"api_key": "[REDACTED:api_key]"}`, map[string]int{"api_key": 1}},
		{"json text escaped inside json", `{\"api_key\": \"q8Xf2LmN0pRt\"}`, `{\"api_key\": \"[REDACTED:api_key]\"}`, map[string]int{"api_key": 1}},
		{"yaml", "client_secret: q8Xf2LmN0pRt\n", "client_secret: [REDACTED:api_key]\n", map[string]int{"api_key": 1}},
		{"go", `apiKey := "q8Xf2LmN0pRt"`, `apiKey := "[REDACTED:api_key]"`, map[string]int{"api_key": 1}},
		{"flag", "tool --access-token=q8Xf2LmN0pRt run", "tool --access-token=[REDACTED:api_key] run", map[string]int{"api_key": 1}},
		{"query", "/cb?state=1&access_token=q8Xf2LmN0pRt&x=1", "/cb?state=1&access_token=[REDACTED:api_key]&x=1", map[string]int{"api_key": 1}},
		{"password short", "DB_PASSWORD=hunter22", "DB_PASSWORD=[REDACTED:api_key]", map[string]int{"api_key": 1}},
		{"password with spaces", `"password": "correct horse battery"`, `"password": "[REDACTED:api_key]"`, map[string]int{"api_key": 1}},
		{"weak key random", "key=9f8e7d6c5b4a39281706", "key=[REDACTED:api_key]", map[string]int{"api_key": 1}},
		// url_credentials
		{"postgres", "postgres://admin:s3cr3t-pw@db:5432/app", "postgres://[REDACTED:url_credentials]@db:5432/app", map[string]int{"url_credentials": 1}},
		{"git remote", "https://x-access-token:q8Xf2LmN@github.com/o/r.git", "https://[REDACTED:url_credentials]@github.com/o/r.git", map[string]int{"url_credentials": 1}},
		{"escaped slashes", `"https:\/\/bob:pa55word@host\/x"`, `"https:\/\/[REDACTED:url_credentials]@host\/x"`, map[string]int{"url_credentials": 1}},
		{"at in password", "redis://:p@ss@cache:6379", "redis://[REDACTED:url_credentials]@cache:6379", map[string]int{"url_credentials": 1}},
		{"token in url creds", "https://oauth2:" + gitlabPAT + "@gitlab.com", "https://[REDACTED:url_credentials]@gitlab.com", map[string]int{"url_credentials": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, kinds := detect(t, redact.New(configured...), tt.in)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if diff := cmp.Diff(tt.kinds, kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
			// Redacted text holds nothing more to redact: an export may
			// pass a value through twice (an event, then the manifest).
			again, kinds := detect(t, redact.New(configured...), got)
			if again != got || len(kinds) != 0 {
				t.Errorf("second pass: String(%q) = %q, %v", got, again, kinds)
			}
		})
	}
}

func TestStringFalsePositives(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"prose": "The token limit was reached, so the key point is this: the secret to a good " +
			"password policy is length. Keys, tokens and secrets: see docs. Press the key to go on.",
		"prose authorization": "Authorization: the server checks who you are, then what you may do.",
		"prose bearer":        "He was the bearer of bad news. Bearer authentication is described in RFC 6750.",
		"git sha":             "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39\nparent: 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
		"uuid":                "run_id=550e8400-e29b-41d4-a716-446655440000 id: 123e4567-e89b-12d3-a456-426614174000",
		"png base64":          "data:image/png;base64," + pngBase64(t),
		"urls":                "https://github.com/owner/repo.git ssh://git@github.com/o/r.git git@github.com:o/r mailto:me@example.com https://example.com/pkg@v1.2:3",
		"counters":            `max_tokens=4096 token_count: 123456789 "input_tokens": 12345678`,
		"env not secrets":     "PWD=/home/user/project\nOLDPWD=/home/user\nKEYBOARD_LAYOUT=us-intl-qwerty\nTOKENIZERS_PARALLELISM=false",
		"keyword":             "keyword: authentication-middleware",
		"json schema":         `{"type":"object","properties":{"api_key":{"type":"string","description":"Your API key"},"token":{"type":"string"}},"required":["api_key"]}`,
		"ts types":            "interface Creds { password: string; apiKey: string; token?: undefined }",
		"code references": "api_key = os.environ[\"OPENAI_API_KEY\"]\ntoken: ${{ secrets.GITHUB_TOKEN }}\n" +
			"apiKey: process.env.OPENAI_API_KEY,\nAPIKey: cfg.APIKey,\nsecret: <your secret here>\ntoken = GITHUB_TOKEN\npassword: '********'",
		"comparisons":     `if token == "" || apiKey != nil { secret => x }`,
		"browser keys":    `{"key": "ArrowDown"} press key=Enter, sort_key: created_at`,
		"slugs":           "pip install sk-learn-tutorial-for-beginners; task-list-for-the-week-ahead-2026; risk-assessment-Q3-2026-final",
		"short config":    "admin", // too short to be configured
		"already done":    "API_KEY=[REDACTED:configured]",
		"headers no auth": "Content-Type: application/json\nAccept: */*\nUser-Agent: steward/1.0",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := redact.New("admin", "")
			if got := r.String("x", in); got != in {
				t.Errorf("String changed ordinary text\n in  %q\n got %q", in, got)
			}
			if rep := r.Report(); len(rep) != 0 {
				t.Errorf("Report() = %v, want none", rep)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	r := redact.New("", "  ", "short", "short", "1234567", " "+serverToken+"\n", serverToken)
	if got := r.Skipped(); got != 2 {
		t.Errorf("Skipped() = %d, want 2 (two distinct short values; empty ones are not secrets)", got)
	}
	if got := r.String("x", "a "+serverToken+" short 1234567"); got != "a [REDACTED:configured] short 1234567" {
		t.Errorf("String = %q", got)
	}
	// A value that contains another is replaced whole.
	r = redact.New("abcdefgh", "xxabcdefghyy")
	if got := r.String("x", "1 xxabcdefghyy 2 abcdefgh"); got != "1 [REDACTED:configured] 2 [REDACTED:configured]" {
		t.Errorf("String = %q", got)
	}
	// The zero Redactor still finds patterns.
	var zero redact.Redactor
	if got := zero.String("x", "k="+githubPAT); got != "k=[REDACTED:api_key]" {
		t.Errorf("zero Redactor: String = %q", got)
	}
}

func TestReport(t *testing.T) {
	t.Parallel()
	r := redact.New(serverToken)
	where := []string{"event 10 node.finished", "event 9 node.started", "manifest", "event 10 node.finished"}
	var wg sync.WaitGroup
	for _, w := range where {
		wg.Go(func() {
			r.String(w, serverToken+" "+githubPAT+" https://u:pa55word@h")
		})
	}
	wg.Wait()
	want := []redact.Finding{
		{Kind: "api_key", Where: "event 9 node.started", Count: 1},
		{Kind: "configured", Where: "event 9 node.started", Count: 1},
		{Kind: "url_credentials", Where: "event 9 node.started", Count: 1},
		{Kind: "api_key", Where: "event 10 node.finished", Count: 2},
		{Kind: "configured", Where: "event 10 node.finished", Count: 2},
		{Kind: "url_credentials", Where: "event 10 node.finished", Count: 2},
		{Kind: "api_key", Where: "manifest", Count: 1},
		{Kind: "configured", Where: "manifest", Count: 1},
		{Kind: "url_credentials", Where: "manifest", Count: 1},
	}
	got := r.Report()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Report (-want +got):\n%s", diff)
	}
	for _, f := range got {
		if strings.Contains(f.Where+f.Kind, serverToken) {
			t.Errorf("finding %v holds a secret", f)
		}
	}
}

// FuzzString feeds the scanners arbitrary text around a configured value:
// they must not panic, the value must not survive, and Pieces must agree
// with String.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a=b", "x://u:p@", `"\`, "Authorization:", "Bearer ", "sk-", "key=\"", "-----BEGIN X PRIVATE KEY-----",
		"postgres://a:b@c", `{\"token\": \"`, "ghp_", "AKIA", ":=", "=>", "a:\\/\\/b:c@d"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, before, after string) {
		const secret = "SECRET-VALUE-1"
		r := redact.New(secret)
		out := r.String("f", before+secret+after)
		if strings.Contains(out, secret) {
			t.Fatalf("String(%q) = %q: the configured value survived", before+secret+after, out)
		}
		r.String("f", before+after)
		// The same text streamed in pieces, the secret cut in two.
		pieces := []string{before, secret[:5], secret[5:] + after}
		if got, want := strings.Join(r.Pieces("f", pieces), ""), out; got != want {
			t.Fatalf("Pieces(%q) joined = %q, want %q", pieces, got, want)
		}
	})
}
