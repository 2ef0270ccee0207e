// Package mcptest holds the MCP server of the tests of Steward's MCP
// client, written with the same SDK, to be served over streamable HTTP
// (sdk.NewStreamableHTTPHandler) or over stdio by a test binary that runs
// itself again (Stdio and ServeIfAsked).
package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/tools/mcp"
)

// fixtureEnv makes the test binary an MCP server over stdio (ServeIfAsked):
// "stdio" serves the fixture, "garbage" prints what is not JSON-RPC.
const fixtureEnv = "STEWARD_MCP_FIXTURE"

// ExtraEnv, set for a Stdio server, adds a tool whose name becomes
// another's once sanitized.
const ExtraEnv = "STEWARD_MCP_FIXTURE_EXTRA"

// Legacy, in Stdio's env, makes an old server that exits on the
// 2026-07-28 era's server/discover and answers initialize.
var Legacy = map[string]string{fixtureEnv: "legacy"}

// StartsEnv, set for a Stdio server to a file's path, makes each start of
// the server add a line to the file.
const StartsEnv = "STEWARD_MCP_FIXTURE_STARTS"

// OnceEnv, set with StartsEnv, makes the server start only once: later
// starts exit at once, saying so on stderr.
const OnceEnv = "STEWARD_MCP_FIXTURE_ONCE"

// CancelsEnv, set for a Stdio server to a file's path, makes the hang
// tool add a line to the file when its call ends: "cancelled" when the
// client cancelled it (notifications/cancelled), "not cancelled" when it
// gave up waiting.
const CancelsEnv = "STEWARD_MCP_FIXTURE_CANCELS"

// SayEnv, set for a Stdio server, is a line the exit and exit_soon tools
// print on stderr before the process exits.
const SayEnv = "STEWARD_MCP_FIXTURE_SAY"

// countStart adds a line to the file at path, the process id and the time
// of the start (unix nanoseconds), and returns how many lines it has.
func countStart(path string) (int, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	if _, err := fmt.Fprintln(f, os.Getpid(), time.Now().UnixNano()); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	b, err := os.ReadFile(path)
	return bytes.Count(b, []byte("\n")), err
}

// Garbage, in Stdio's env, makes a server that prints garbage and exits.
var Garbage = map[string]string{fixtureEnv: "garbage"}

// ServeIfAsked makes the test binary the fixture server over stdio, when
// Stdio started it, and then exits; otherwise it returns at once. Call it
// first in TestMain.
func ServeIfAsked() {
	if f := os.Getenv(StartsEnv); f != "" && os.Getenv(fixtureEnv) != "" {
		n, err := countStart(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			os.Exit(1)
		}
		if n > 1 && os.Getenv(OnceEnv) != "" {
			fmt.Fprintln(os.Stderr, "fixture: started once already, refusing to start again")
			os.Exit(1)
		}
	}
	switch os.Getenv(fixtureEnv) {
	case "legacy":
		// An old server: it knows initialize only, and exits on the
		// server/discover probe, as some do.
		br := bufio.NewReader(os.Stdin)
		line, err := br.ReadBytes('\n')
		if err != nil || bytes.Contains(line, []byte(`"server/discover"`)) {
			fmt.Fprintln(os.Stderr, "fixture: an old server, exiting on server/discover")
			os.Exit(1)
		}
		t := &sdk.IOTransport{Reader: io.NopCloser(io.MultiReader(bytes.NewReader(line), br)), Writer: os.Stdout}
		if err := Server(false).Run(context.Background(), t); err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "stdio":
		t := &sdk.IOTransport{Reader: gate{os.Stdin}, Writer: os.Stdout}
		if err := Server(os.Getenv(ExtraEnv) != "").Run(context.Background(), t); err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "garbage":
		fmt.Println("this is not JSON-RPC")
		fmt.Fprintln(os.Stderr, "fixture: printed garbage")
		os.Exit(2)
	}
}

// HangFor bounds the hang tool.
const HangFor = 3 * time.Second

// EchoArgs are echo's arguments.
type EchoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type noArgs struct{}

// StructuredArgs are structured's arguments.
type StructuredArgs struct {
	Extra bool `json:"extra,omitempty"`
}

// GetenvArgs are getenv's arguments.
type GetenvArgs struct {
	Name string `json:"name"`
}

// ProgressArgs are progress's arguments.
type ProgressArgs struct {
	// Count is how many reports the call sends, EveryMS apart.
	Count   int `json:"count" jsonschema:"how many progress notifications to send"`
	EveryMS int `json:"every_ms,omitempty"`
	// NoTotal leaves the total out of the reports.
	NoTotal bool `json:"no_total,omitempty"`
	// Stray first sends reports with tokens the client never gave (one
	// of another call's form, a number): a server trying its luck.
	Stray bool `json:"stray,omitempty"`
	// AfterMS sends one report more with the call's token this long after
	// the answer, on the session that stays open (stdio).
	AfterMS int `json:"after_ms,omitempty"`
	// Message, when set, is every report's message, for the caps and the
	// redaction; otherwise the message is "step i of count".
	Message string `json:"message,omitempty"`
	// AsToken, when set, is the token the reports carry instead of the
	// call's own: another call's, a server reporting on what is not its.
	AsToken string `json:"as_token,omitempty"`
}

// AskArgs are the ask tool's arguments: what it asks the client's person,
// a form (Schema) or a page (URL).
type AskArgs struct {
	Message string         `json:"message"`
	Schema  map[string]any `json:"schema,omitempty"`
	URL     string         `json:"url,omitempty"`
}

// AskAnswer starts the ask tool's answer; the answer it was given, as
// JSON, follows.
const AskAnswer = "answer: "

// ask asks as a server of the 2026-07-28 era does, with an input-required
// result, and says the answer it is called again with; for a client of
// the older era, the SDK's server sends elicitation/create instead and
// calls it again with the answer.
func ask(ctx context.Context, req *sdk.CallToolRequest, in AskArgs) (*sdk.CallToolResult, any, error) {
	if r, ok := req.Params.InputResponses["q"]; ok {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: AskAnswer + string(b)}}}, nil, nil
	}
	p := &sdk.ElicitParams{Mode: "form", Message: in.Message, RequestedSchema: in.Schema}
	if in.URL != "" {
		p = &sdk.ElicitParams{Mode: "url", Message: in.Message, URL: in.URL, ElicitationID: "ask-1"}
	}
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"q": p}}, nil, nil
}

// maxProgress bounds the reports of one progress call.
const maxProgress = 10000

// ProgressMessage is the message of report i (from 1) of count.
func ProgressMessage(i, count int) string { return fmt.Sprintf("step %d of %d", i, count) }

// progress sends the reports in.Count asks for, when the client gave a
// progress token: progress i (from 1), total in.Count unless in.NoTotal.
func progress(ctx context.Context, req *sdk.CallToolRequest, in ProgressArgs) (*sdk.CallToolResult, any, error) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "no progress token"}}}, nil, nil
	}
	if in.Count < 0 || in.Count > maxProgress {
		return nil, nil, fmt.Errorf("count %d: from 0 to %d", in.Count, maxProgress)
	}
	send := func(ctx context.Context, token any, i int) error {
		p := &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Message: ProgressMessage(i, in.Count)}
		if in.Message != "" {
			p.Message = in.Message
		}
		if !in.NoTotal {
			p.Total = float64(in.Count)
		}
		return req.Session.NotifyProgress(ctx, p)
	}
	if in.Stray {
		for _, t := range []any{"steward-999999", 1} {
			if err := send(ctx, t, -1); err != nil {
				return nil, nil, err
			}
		}
	}
	if in.AsToken != "" {
		token = in.AsToken
	}
	for i := 1; i <= in.Count; i++ {
		if i > 1 && in.EveryMS > 0 {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(time.Duration(in.EveryMS) * time.Millisecond):
			}
		}
		if err := send(ctx, token, i); err != nil {
			return nil, nil, err
		}
	}
	if in.AfterMS > 0 {
		time.AfterFunc(time.Duration(in.AfterMS)*time.Millisecond, func() {
			_ = send(context.Background(), token, in.Count+1) // the test sees whether it arrived
		})
	}
	text := fmt.Sprintf("sent %d progress notifications for token %v", in.Count, token)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil, nil
}

// ProbeArgs are what the probe tool tries: read a file, write one, reach
// an address over TCP (each when given).
type ProbeArgs struct {
	Read  string `json:"read,omitempty"`
	Write string `json:"write,omitempty"`
	Dial  string `json:"dial,omitempty"`
}

// probe tries what a says, one line of outcome each: "read ok: <first
// bytes>", "write ok", "dial ok", or the error.
func probe(a ProbeArgs) string {
	var out []string
	if a.Read != "" {
		if b, err := os.ReadFile(a.Read); err != nil {
			out = append(out, "read: "+err.Error())
		} else {
			out = append(out, "read ok: "+string(b[:min(len(b), 40)]))
		}
	}
	if a.Write != "" {
		if err := os.WriteFile(a.Write, []byte("from the server\n"), 0o644); err != nil {
			out = append(out, "write: "+err.Error())
		} else {
			out = append(out, "write ok")
		}
	}
	if a.Dial != "" {
		if c, err := net.DialTimeout("tcp", a.Dial, 2*time.Second); err != nil {
			out = append(out, "dial: "+err.Error())
		} else {
			c.Close()
			out = append(out, "dial ok")
		}
	}
	return strings.Join(out, "\n")
}

// Server is the MCP server of the tests, written with the same SDK as the
// client: extra adds a tool whose name becomes another's once sanitized.
// Its tools: echo (read-only), fail (isError), hang (until cancelled),
// exit (the process exits mid-call: stdio only), exit_soon (it exits just
// after answering), freeze (the process stops: it hangs), big (400 KiB),
// mixed.content (every kind of content), pictures, structured, wipe,
// getenv, pid, capabilities (what the client claimed) and progress (sends
// notifications/progress when the call carries a token).
func Server(extra bool) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "fixture", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, in EchoArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("the fixture's tool failed on purpose")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "Waits until cancelled."},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			// Bounded all the same: on stateless HTTP the client's
			// notifications/cancelled reaches no handler (there is no
			// session to route it by), and the test server's Close waits
			// for this one.
			select {
			case <-ctx.Done():
				note(CancelsEnv, "cancelled")
				return nil, nil, ctx.Err()
			case <-time.After(HangFor):
				note(CancelsEnv, "not cancelled")
				return nil, nil, errors.New("hang: nobody cancelled the call")
			}
		})
	sdk.AddTool(s, &sdk.Tool{Name: "freeze", Description: "The server hangs: it reads and answers nothing more (stdio only)."},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			freezeOnce.Do(func() { close(frozen) })
			time.Sleep(time.Hour) // a sleep, not a select{}: the runtime must not end the process as deadlocked
			return nil, nil, errors.New("freeze: thawed")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "exit_soon", Description: "Answers, then the server process exits 100 ms later."},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			time.AfterFunc(100*time.Millisecond, func() {
				fmt.Fprintln(os.Stderr, "fixture: exiting between calls")
				say()
				os.Exit(4)
			})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "exiting soon"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "exit", Description: "The server process exits mid-call."},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "fixture: exiting in the middle of a call")
			say()
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "progress", Description: "Sends count progress notifications when the call asks for progress, then answers.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, progress)
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Returns 400 KiB of text."},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x", 400<<10)}}}, nil, nil
		})
	f := false
	sdk.AddTool(s, &sdk.Tool{Name: "mixed.content", Description: "Returns every kind of content.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &f, OpenWorldHint: &f}},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "some text"},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")},
				&sdk.ResourceLink{URI: "file:///tmp/report.txt", Name: "report", MIMEType: "text/plain"},
			}, StructuredContent: map[string]any{"count": 2}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "wipe", Description: "Claims to be destructive.", Annotations: &sdk.ToolAnnotations{DestructiveHint: nil}},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "wiped nothing"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "getenv", Description: "Returns an environment variable of the server.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, in GetenvArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Name + "=" + os.Getenv(in.Name)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "probe", Description: "Tries to read a file, write one and reach a TCP address, and says what happened."},
		func(ctx context.Context, req *sdk.CallToolRequest, in ProbeArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: probe(in)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "Returns the server's process id."},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strconv.Itoa(os.Getpid())}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pictures", Description: "Returns a 3×2 PNG, bytes that claim to be a PNG and an SVG."},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.ImageContent{MIMEType: "image/png", Data: PNG},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("not a png")},
				&sdk.ImageContent{MIMEType: "image/svg+xml", Data: []byte("<svg/>")},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "structured", Description: "Says its structured content in its text blocks too, and with extra set one field more."},
		func(ctx context.Context, req *sdk.CallToolRequest, in StructuredArgs) (*sdk.CallToolResult, any, error) {
			sc := map[string]any{"content": "file text", "items": []any{map[string]any{"n": 1}}}
			if in.Extra {
				sc["extra"] = 3
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "file text"}, &sdk.TextContent{Text: `[{"n": 1}]`}},
				StructuredContent: sc}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "ask", Description: "Asks the client's person (an elicitation), then says the answer."}, ask)
	sdk.AddTool(s, &sdk.Tool{Name: "capabilities", Description: "Returns the capabilities the client claimed, as JSON."},
		func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
			// As on the wire: RootsV2 says whether roots are claimed
			// (Roots, a struct, is always there).
			c := req.ClientCapabilities()
			claimed := map[string]any{}
			if c != nil {
				if c.RootsV2 != nil {
					claimed["roots"] = c.RootsV2
				}
				if c.Sampling != nil {
					claimed["sampling"] = c.Sampling
				}
				if c.Elicitation != nil {
					claimed["elicitation"] = c.Elicitation
				}
				for k, v := range c.Experimental {
					claimed["experimental."+k] = v
				}
			}
			b, err := json.Marshal(claimed)
			if err != nil {
				return nil, nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil, nil
		})
	// A schema the SDK's server takes (its type is object) and no
	// validator can read.
	s.AddTool(&sdk.Tool{Name: "bad_schema", Description: "Its schema is not valid.",
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer", "minimum": "zero"}}}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	s.AddTool(&sdk.Tool{Name: "protocol_error", Description: "Answers with a JSON-RPC error, not a result.",
		InputSchema: json.RawMessage(`{"type": "object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return nil, errors.New("the fixture answers with a protocol error on purpose")
		})
	if extra {
		sdk.AddTool(s, &sdk.Tool{Name: "mixed_content", Description: "Shares a name with mixed.content once sanitized."},
			func(ctx context.Context, req *sdk.CallToolRequest, in noArgs) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{}, nil, nil
			})
	}
	return s
}

// frozen is closed by the freeze tool: the stdio server then reads no more.
var (
	frozen     = make(chan struct{})
	freezeOnce sync.Once
)

// gate is the stdio server's stdin, which stops for good once frozen: a
// hung server, which takes no message (a ping) and ends only by a signal.
type gate struct{ io.ReadCloser }

func (g gate) Read(p []byte) (int, error) {
	g.wait()
	n, err := g.ReadCloser.Read(p)
	g.wait() // what a read that was waiting brings after the freeze is lost
	return n, err
}

func (gate) wait() {
	select {
	case <-frozen:
		time.Sleep(time.Hour)
	default:
	}
}

// note adds line to the file the environment variable env names, when it
// is set (a stdio server's).
func note(env, line string) {
	path := os.Getenv(env)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// say prints SayEnv's line on stderr, when it is set.
func say() {
	if line := os.Getenv(SayEnv); line != "" {
		fmt.Fprintln(os.Stderr, line)
	}
}

// PNG is the 3×2 picture the pictures tool returns.
var PNG = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}()

// Stdio is the fixture run as a program: this test binary again, whose
// TestMain calls ServeIfAsked.
func Stdio(env map[string]string) mcp.Server {
	e := map[string]string{fixtureEnv: "stdio"}
	for k, v := range env {
		e[k] = v
	}
	return mcp.Server{Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: e}
}
