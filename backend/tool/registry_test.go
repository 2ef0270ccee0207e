package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

type echoArgs struct {
	Text  string `json:"text" jsonschema:"what to echo"`
	Times int    `json:"times,omitempty"`
}

func newTestRegistry(t *testing.T, extra ...Tool) *Registry {
	t.Helper()
	r := NewRegistry()
	echo := Must(New("echo", "echoes text", RiskRead, func(ctx context.Context, env Env, a echoArgs) (Result, error) {
		return Result{Output: strings.Repeat(a.Text, max(a.Times, 1))}, nil
	}))
	for _, tl := range append([]Tool{echo}, extra...) {
		if err := r.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func TestRegistryValidation(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t)
	tests := []struct {
		name, tool, args, code, msg string
	}{
		{"ok", "echo", `{"text":"hi"}`, "", ""},
		{"unknown tool", "nope", `{}`, CodeUnknownTool, "available tools: echo"},
		{"missing required", "echo", `{}`, CodeInvalidArguments, "text"},
		{"wrong type", "echo", `{"text":5}`, CodeInvalidArguments, "text"},
		{"extra field", "echo", `{"text":"a","loud":true}`, CodeInvalidArguments, "loud"},
		{"not json", "echo", `{"text":`, CodeInvalidArguments, "not valid JSON"},
		{"array", "echo", `[1]`, CodeInvalidArguments, "schema"},
		{"null", "echo", `null`, CodeInvalidArguments, "schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := r.Call(context.Background(), Env{}, tt.tool, json.RawMessage(tt.args))
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if res.Code != tt.code || (tt.code != "") != res.IsError {
				t.Fatalf("Call(%s, %s) = %+v, want code %q", tt.tool, tt.args, res, tt.code)
			}
			if !strings.Contains(res.Output, tt.msg) {
				t.Errorf("output %q does not mention %q", res.Output, tt.msg)
			}
		})
	}
}

func TestRegistryDuplicate(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t)
	echo := Must(New("echo", "again", RiskRead, func(ctx context.Context, env Env, a echoArgs) (Result, error) { return Result{}, nil }))
	if err := r.Register(echo); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("Register twice = %v, want ErrDuplicate", err)
	}
}

type noArgs struct{}

func TestRegistryDeadlineRacesStubbornTool(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	stubborn := Must(New("stubborn", "ignores its context", RiskRead, func(ctx context.Context, env Env, a noArgs) (Result, error) {
		<-release
		return Result{Output: "late"}, nil
	}))
	r := newTestRegistry(t, stubborn)
	if err := r.SetTimeout("stubborn", 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := r.SetTimeout("nope", time.Second); err == nil {
		t.Error("a timeout for an unknown tool was accepted")
	}
	start := time.Now()
	res, err := r.Call(context.Background(), Env{}, "stubborn", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != CodeTimeout {
		t.Fatalf("result %+v, want timeout", res)
	}
	if d := time.Since(start); d > 50*time.Millisecond+toolGrace+500*time.Millisecond {
		t.Errorf("Call took %s, want about %s", d, 50*time.Millisecond+toolGrace)
	}
	if !strings.Contains(res.Output, "within 50ms") {
		t.Errorf("timeout message %q does not name the tool's own deadline", res.Output)
	}
}

func TestRegistryCancelAndSuccess(t *testing.T) {
	t.Parallel()
	waiter := Must(New("waiter", "waits for cancel", RiskRead, func(ctx context.Context, env Env, a noArgs) (Result, error) {
		<-ctx.Done()
		return Result{}, ctx.Err() // a Go error caused by the cancel is not a system failure
	}))
	finisher := Must(New("finisher", "finishes although cancelled", RiskWrite, func(ctx context.Context, env Env, a noArgs) (Result, error) {
		<-ctx.Done()
		return Result{Output: "wrote it"}, nil
	}))
	r := newTestRegistry(t, waiter, finisher)
	for _, tc := range []struct{ tool, code, out string }{{"waiter", CodeCancelled, "cancelled"}, {"finisher", "", "wrote it"}} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		res, err := r.Call(ctx, Env{}, tc.tool, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if res.Code != tc.code || !strings.Contains(res.Output, tc.out) {
			t.Errorf("%s: %+v, want code %q output %q", tc.tool, res, tc.code, tc.out)
		}
	}
}

func TestRegistryPanicAndSystemError(t *testing.T) {
	t.Parallel()
	panicky := Must(New("panicky", "panics", RiskRead, func(ctx context.Context, env Env, a noArgs) (Result, error) { panic("boom") }))
	broken := Must(New("broken", "fails", RiskRead, func(ctx context.Context, env Env, a noArgs) (Result, error) {
		return Result{}, errors.New("disk on fire")
	}))
	r := newTestRegistry(t, panicky, broken)
	if _, err := r.Call(context.Background(), Env{}, "panicky", nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("panic: err = %v, want it reported", err)
	}
	if _, err := r.Call(context.Background(), Env{}, "broken", nil); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("system error: err = %v", err)
	}
}

func TestRegistryOutputCap(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t)
	r.MaxOutput = 100
	res, err := r.Call(context.Background(), Env{}, "echo", json.RawMessage(`{"text":"é","times":500}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "bytes cut]") || !utf8.ValidString(res.Output) {
		t.Fatalf("output not cut cleanly: %q", res.Output)
	}
	if !strings.HasPrefix(res.Output, "éé") || !strings.HasSuffix(res.Output, "éé") {
		t.Errorf("head or tail lost: %q", res.Output)
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		max      int
		wantSame bool
	}{
		{"short", 10, true},
		{strings.Repeat("a", 10), 10, true},
		{"\xff" + strings.Repeat("a", 100), 20, false},
		{strings.Repeat("日本", 50), 31, false},
	}
	for _, tt := range tests {
		got := Truncate(tt.in, tt.max)
		if (got == tt.in) != tt.wantSame {
			t.Errorf("Truncate(%q, %d) = %q", tt.in, tt.max, got)
		}
		if !tt.wantSame {
			head, _, _ := strings.Cut(got, "\n…")
			if len(head) < tt.max/2-3 {
				t.Errorf("Truncate(%q, %d) kept only %d head bytes", tt.in, tt.max, len(head))
			}
		}
	}
}
