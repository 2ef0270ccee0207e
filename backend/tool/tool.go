// Package tool holds the tool interface, the registry that offers tools to
// the model, and the middleware every call goes through: argument validation
// against the tool's JSON Schema, a deadline, panic recovery and output caps.
//
// A tool's own failure (file not found, bad arguments) is a Result with
// IsError set: the model sees it and the run goes on. A Go error from a tool
// means the system failed.
package tool

import (
	"context"
	"encoding/json"

	"steward/backend/event"
	"steward/backend/sandbox"
)

// Risk says what a tool can do, for the permission policy and the UI: the
// log's vocabulary (event.Risks lists them).
type Risk = event.Risk

// Risks, from least to most dangerous.
const (
	RiskRead        = event.RiskRead        // reads the workspace
	RiskWrite       = event.RiskWrite       // changes the workspace
	RiskExec        = event.RiskExec        // runs a program
	RiskNetwork     = event.RiskNetwork     // reaches the network
	RiskDestructive = event.RiskDestructive // can lose work
)

// Spec describes a tool.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Risk        Risk            `json:"risk"`
	Schema      json.RawMessage `json:"schema"`
	// Sandboxed means the tool runs its program in the OS sandbox (package
	// sandbox) when the run's settings and the machine allow it; the
	// policy asks about each of its calls that mode auto cannot sandbox.
	Sandboxed bool `json:"sandboxed,omitempty"`
	// RiskNote says why the tool has its risk when that is not the tool's
	// own claim (an untrusted MCP server's tool is exec or network whatever
	// its annotations say); the policy's reasons carry it.
	RiskNote string `json:"risk_note,omitempty"`
}

// Env is what a call may know of its run.
type Env struct {
	RunID string
	// Workspace is the absolute, symlink-resolved root the call is confined to.
	Workspace string
	// Files is the run's record of what its file tools read and changed;
	// nil when nothing is tracked (a tool called outside a run).
	Files Files
	// NodeID is the call's tool node; empty outside a run.
	NodeID string
	// Artifacts is the absolute directory where the run keeps the files its
	// calls produce (screenshots, videos); whoever writes creates it. Empty:
	// nothing is kept.
	Artifacts string
	// Domains are the agent's allowed browser domains, as globs
	// ("example.com", "*.example.com"); empty allows any.
	Domains []string
	// Withheld, when set, reports whether the run may not read the
	// workspace path a touch names: a rule denies it, or asks first.
	// Search and listing tools leave such paths out of what they show and
	// say how many they left out, never which. nil withholds nothing. It
	// is safe for concurrent use.
	Withheld func(Touch) bool
	// Sandbox are the run's sandbox settings, for the tools whose programs
	// run in the OS sandbox.
	Sandbox sandbox.Settings
	// Server, when set, records what became of a server the call's tool
	// reaches (an MCP server connected, crashed or is started again) as an
	// mcp.server event of the run, on the call's node, through the
	// engine's own path: redacted, durable, exported with the run. It may
	// be called only until Run returns, and is safe for concurrent use.
	// nil (a call outside a run) records nothing.
	Server func(event.MCPServerData)
	// Progress, when set, records how far the call has got, as its tool
	// hears it (an MCP server's notifications/progress), as tool.progress
	// events on the call's node; the engine throttles them. Like Server,
	// it may be called only until Run returns, and is safe for concurrent
	// use; nil (a call outside a run) records nothing, and a tool may then
	// not ask for progress at all.
	Progress func(Progress)
	// Elicit, when set, asks the person a question the call's server asks
	// while the call runs (an MCP server's elicitation) and waits for the
	// answer, until ctx ends: the engine opens it in the inbox. It is safe
	// for concurrent use and may be called only until Run returns; nil (a
	// call outside a run, an unattended one) declines at once.
	Elicit func(ctx context.Context, q Elicitation) (ElicitAnswer, error)
}

// Elicitation is what a server asks the person: its message as Text, its
// name as Server, and a form's Schema or a page's URL (event.Question).
type Elicitation = event.Question

// ElicitAnswer is the person's answer to an elicitation: Action is one of
// ElicitAccept (with a form's Content, defaults filled in), ElicitDecline
// (the person said no) or ElicitCancel (nobody answered: the time ran
// out, the call or the run ended).
type ElicitAnswer struct {
	Action  string
	Content json.RawMessage
}

// Elicitation actions, as MCP names them.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// AskPerson asks q through env.Elicit; with none it declines.
func (env Env) AskPerson(ctx context.Context, q Elicitation) (ElicitAnswer, error) {
	if env.Elicit == nil {
		return ElicitAnswer{Action: ElicitDecline}, nil
	}
	return env.Elicit(ctx, q)
}

// Progress is how far a call has got: the log's tool.progress payload.
type Progress = event.ToolProgressData

// ReportServer records d through env.Server, when there is one.
func (env Env) ReportServer(d event.MCPServerData) {
	if env.Server != nil {
		env.Server(d)
	}
}

// ReportProgress records p through env.Progress, when there is one.
func (env Env) ReportProgress(p Progress) {
	if env.Progress != nil {
		env.Progress(p)
	}
}

// Prechecker is a tool that can tell, without the call's effect, that it
// would refuse a call as things are now (a stale read, an edit's text not in
// the file): the engine gives the model that refusal at once rather than
// ask a person to approve a call that cannot run. It must have no side
// effect, and be as strict as the call, never stricter: a refusal is
// final for the call.
type Prechecker interface {
	Precheck(ctx context.Context, env Env, args json.RawMessage) (Result, bool)
}

// Preview is what a call would change, shown to the person asked to
// approve it: the unified diff of every file against its content now (a
// new file's whole content, a deleted file's removal), git style with three
// lines of context and true line numbers. Note says what the diff does not
// show: a binary file, a diff cut at its bound.
type Preview = event.Preview

// Previewer is a tool that can show what a call would change, without its
// effect. Like a precheck, it must have no side effect; a call it cannot
// preview (one its tool would refuse, a system error) has none.
type Previewer interface {
	Preview(ctx context.Context, env Env, args json.RawMessage) (Preview, bool)
}

// Access is how a call touches a path (event.Accesses lists them).
type Access = event.Access

// Accesses.
const (
	AccessRead  = event.AccessRead
	AccessWrite = event.AccessWrite
)

// Touch is one workspace path that a call will open.
type Touch struct {
	// Path is the file the call opens: relative to the workspace root,
	// slash-separated, every symlink resolved and "." and ".." folded, as
	// workspace.Rel gives it; "." is the root.
	Path string `json:"path"`
	// Via is the path as the call spells it, cleaned and relative, when
	// that is another name for Path (a symlink, or ".." after one); empty
	// when it is Path.
	Via    string `json:"via,omitempty"`
	Access Access `json:"access"`
}

// Names returns the names a rule may match the touch by: Path, then Via.
func (t Touch) Names() []string {
	if t.Via == "" || t.Via == t.Path {
		return []string{t.Path}
	}
	return []string{t.Path, t.Via}
}

// String names the touch for a reason: ".env", or ".env via env-alias.txt".
func (t Touch) String() string {
	if t.Via == "" || t.Via == t.Path {
		return t.Path
	}
	return t.Path + " via " + t.Via
}

// Toucher is implemented by a tool that opens workspace paths: Touches
// returns every path a call with args will open, as the tool will open it,
// so that the permission policy decides on the files themselves and not
// on how the model spelled them. A path the tool cannot resolve (outside
// the workspace, invalid) is left out: the tool refuses it when it runs.
// ok is false when the tool does not know (then the arguments decide).
type Toucher interface {
	Touches(env Env, args json.RawMessage) (touches []Touch, ok bool)
}

// Artifact is a file a call or a run produced, kept in Env.Artifacts and
// announced by an artifact.created event.
type Artifact struct {
	// Name is the file's path relative to Env.Artifacts, slash-separated.
	Name        string             `json:"name"`
	Kind        event.ArtifactKind `json:"kind"` // ArtifactScreenshot, ArtifactVideo, ArtifactFrames, ArtifactImage
	Mime        string             `json:"mime"`
	Size        int64              `json:"size"`
	Description string             `json:"description,omitempty"`
}

// Artifact kinds.
const (
	ArtifactScreenshot = event.ArtifactScreenshot
	ArtifactVideo      = event.ArtifactVideo
	// ArtifactFrames is a recording's frames left unencoded (no ffmpeg).
	ArtifactFrames = event.ArtifactFrames
	// ArtifactImage is a picture a tool returned (an MCP server's).
	ArtifactImage = event.ArtifactImage
)

// Keyer is implemented by a tool whose key argument, the one permission
// rules match, depends on more than its arguments: the browser's tools
// act on the current page, whose domain only the run's session knows.
type Keyer interface {
	Key(env Env, args json.RawMessage) (key string, ok bool)
}

// RunEnder is implemented by what keeps state for a run between its calls
// (a browser session). EndRun is called once when the run ends, before its
// final status; the artifacts it returns (a recording) are announced
// without a node.
type RunEnder interface {
	EndRun(ctx context.Context, env Env) ([]Artifact, error)
}

// Files tracks the workspace files of one run for its file tools: what the
// run has read (a file that exists may only be changed after the run read
// it, and only while it still has the content read), and every change the
// tools make, with the content before and after, for review and undo.
// Paths are relative to the workspace, slash-separated, as workspace.Rel
// gives them. Its methods are safe for concurrent use.
type Files interface {
	// Read notes that the call read path, whose whole content is content
	// (also when it returned only some lines).
	Read(path string, content []byte)
	// CheckWrite returns nil when the call may replace path, whose current
	// content is current (exists false: there is no such file, and it may
	// be created). Otherwise its error tells the model what to do: read
	// the file (again) first.
	CheckWrite(path string, current []byte, exists bool) error
	// Changed records a change the call made: the content before (nil: it
	// did not exist) and after (nil: deleted). The new content counts as
	// read: the run may change the file again without reading it.
	Changed(path string, before, after []byte) error
}

// Result is what the model receives.
type Result struct {
	Output  string `json:"output"`
	IsError bool   `json:"is_error,omitempty"`
	// Code classifies a model-visible failure, for example invalid_arguments.
	Code string `json:"code,omitempty"`
	// Artifacts are the files the call produced; the model sees only what
	// Output says of them.
	Artifacts []Artifact `json:"artifacts,omitempty"`
}

// Errorf returns a model-visible failure with a diagnostic code.
func Errorf(code, msg string) Result { return Result{Output: msg, IsError: true, Code: code} }

// Tool is one callable tool. Run receives arguments that already passed
// validation against Spec().Schema.
type Tool interface {
	Spec() Spec
	Run(ctx context.Context, env Env, args json.RawMessage) (Result, error)
}
